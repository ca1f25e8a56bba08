-- AlterTable
ALTER TABLE "ci_pipelines" ADD COLUMN     "mergeRequestId" INTEGER;

-- CreateIndex
CREATE INDEX "ci_pipelines_mergeRequestId_id_idx" ON "ci_pipelines"("mergeRequestId", "id");

-- AddForeignKey
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

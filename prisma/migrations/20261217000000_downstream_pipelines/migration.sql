-- AlterTable
ALTER TABLE "ci_pipelines" ADD COLUMN     "sourceJobId" INTEGER;

-- CreateIndex
CREATE UNIQUE INDEX "ci_pipelines_sourceJobId_key" ON "ci_pipelines"("sourceJobId");

-- AddForeignKey
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_parentPipelineId_fkey" FOREIGN KEY ("parentPipelineId") REFERENCES "ci_pipelines"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_sourceJobId_fkey" FOREIGN KEY ("sourceJobId") REFERENCES "ci_builds"("id") ON DELETE SET NULL ON UPDATE CASCADE;

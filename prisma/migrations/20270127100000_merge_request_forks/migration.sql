-- AlterTable
ALTER TABLE "merge_requests" ADD COLUMN     "allowMaintainerToPush" BOOLEAN NOT NULL DEFAULT false,
ALTER COLUMN "sourceProjectId" DROP NOT NULL;

-- CreateIndex
CREATE INDEX "merge_requests_sourceProjectId_sourceBranch_idx" ON "merge_requests"("sourceProjectId", "sourceBranch");

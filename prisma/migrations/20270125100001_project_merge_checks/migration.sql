-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "allowMergeOnSkippedPipeline" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "onlyAllowMergeIfAllDiscussionsAreResolved" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "onlyAllowMergeIfPipelineSucceeds" BOOLEAN NOT NULL DEFAULT false;

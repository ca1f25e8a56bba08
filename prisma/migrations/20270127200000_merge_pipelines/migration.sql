-- AlterTable
ALTER TABLE "ci_pipelines" ADD COLUMN     "sourceSha" TEXT,
ADD COLUMN     "targetSha" TEXT;

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "mergePipelinesEnabled" BOOLEAN NOT NULL DEFAULT false;

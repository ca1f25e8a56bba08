-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "ciAllowForkPipelinesToRunInParentProject" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "ci_pipelines" ADD COLUMN     "persistentRef" BOOLEAN NOT NULL DEFAULT false;

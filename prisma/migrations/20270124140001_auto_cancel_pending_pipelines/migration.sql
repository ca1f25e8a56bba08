-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "autoCancelPendingPipelines" TEXT NOT NULL DEFAULT 'enabled';

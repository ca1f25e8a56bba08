-- AlterTable
ALTER TABLE "user_preferences" ADD COLUMN     "visibilityPipelineIdType" TEXT NOT NULL DEFAULT 'id';

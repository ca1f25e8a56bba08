-- AlterTable
ALTER TABLE "merge_requests" ADD COLUMN     "autoMergeEnabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "autoMergeStrategy" TEXT,
ADD COLUMN     "mergeParams" JSONB;

-- AlterTable
ALTER TABLE "merge_requests" ADD COLUMN     "mergeError" TEXT,
ADD COLUMN     "rebaseCommitSha" TEXT,
ADD COLUMN     "rebaseJid" TEXT;

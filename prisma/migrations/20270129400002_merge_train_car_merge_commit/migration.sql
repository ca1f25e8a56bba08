-- AlterTable
ALTER TABLE "merge_train_cars" ADD COLUMN     "mergeCommitSha" TEXT;

-- AlterTable
ALTER TABLE "user_preferences" ADD COLUMN     "issuesSort" TEXT;

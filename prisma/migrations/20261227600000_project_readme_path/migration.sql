-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "readmePath" TEXT;

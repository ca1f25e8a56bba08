-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "emptyRepo" BOOLEAN NOT NULL DEFAULT true;

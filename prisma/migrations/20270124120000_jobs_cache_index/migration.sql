-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "jobsCacheIndex" INTEGER;

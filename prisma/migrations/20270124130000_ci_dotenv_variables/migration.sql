-- AlterTable
ALTER TABLE "ci_builds" ADD COLUMN     "dotenvVariables" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "ciPipelineVariablesMinimumOverrideRole" TEXT NOT NULL DEFAULT 'developer',
ADD COLUMN     "restrictUserDefinedVariables" BOOLEAN NOT NULL DEFAULT false;

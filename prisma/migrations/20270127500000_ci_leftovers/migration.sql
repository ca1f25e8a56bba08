-- AlterTable
ALTER TABLE "ci_pipeline_schedules" ADD COLUMN     "inputs" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "ciForwardDeploymentEnabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "ciForwardDeploymentRollbackAllowed" BOOLEAN NOT NULL DEFAULT true;

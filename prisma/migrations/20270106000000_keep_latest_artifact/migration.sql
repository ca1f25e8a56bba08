-- AlterTable
ALTER TABLE "project_ci_cd_settings" ADD COLUMN     "keepLatestArtifact" BOOLEAN NOT NULL DEFAULT true;

-- CreateIndex
CREATE INDEX "ci_job_artifacts_expireAt_idx" ON "ci_job_artifacts"("expireAt");

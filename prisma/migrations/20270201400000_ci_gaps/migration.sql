-- Project CI settings (GitLab's ci_cd_settings.separated_caches, group_runners_enabled, build_allow_git_fetch) and
-- Environment.autoDeleteAt (GitLab's environments.auto_delete_at, set by the review apps cleanup).
ALTER TABLE "projects" ADD COLUMN "ciSeparatedCaches" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "projects" ADD COLUMN "groupRunnersEnabled" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "projects" ADD COLUMN "buildAllowGitFetch" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "environments" ADD COLUMN "autoDeleteAt" TIMESTAMPTZ(3);
CREATE INDEX "environments_autoDeleteAt_idx" ON "environments"("autoDeleteAt");
-- Pipeline.autoCancelOnNewCommit / autoCancelOnJobFailure (GitLab's ci_pipeline_metadata auto_cancel_on_new_commit,
-- auto_cancel_on_job_failure), from workflow:auto_cancel.
ALTER TABLE "ci_pipelines" ADD COLUMN "autoCancelOnNewCommit" TEXT NOT NULL DEFAULT 'conservative';
ALTER TABLE "ci_pipelines" ADD COLUMN "autoCancelOnJobFailure" TEXT NOT NULL DEFAULT 'none';

-- Where a pipeline's configuration came from (GitLab's config_source). Pipelines made before: a child pipeline's
-- came from its trigger job, a skipped one read none, any other came from the repository.
ALTER TABLE "ci_pipelines" ADD COLUMN "configSource" TEXT;
UPDATE "ci_pipelines" SET "configSource" = CASE WHEN "parentPipelineId" IS NOT NULL THEN 'bridge_source' ELSE 'repository_source' END
WHERE "status" <> 'skipped';

-- A pipeline schedule always has an owner (GitLab's PipelineSchedule.owner is non-null). Schedules whose owner was
-- deleted before user deletion handed them over go, inactive, to the ghost user, or where none exists (only hard
-- deletions happened) to the first administrator, else the first user: inactive, they run as nobody until a
-- Maintainer takes one over.
UPDATE "ci_pipeline_schedules" SET "active" = false, "ownerId" = COALESCE(
  (SELECT "id" FROM "users" WHERE "userType" = 'ghost' ORDER BY "id" LIMIT 1),
  (SELECT "id" FROM "users" WHERE "admin" ORDER BY "id" LIMIT 1),
  (SELECT "id" FROM "users" ORDER BY "id" LIMIT 1)
) WHERE "ownerId" IS NULL;

ALTER TABLE "ci_pipeline_schedules" DROP CONSTRAINT "ci_pipeline_schedules_ownerId_fkey";
ALTER TABLE "ci_pipeline_schedules" ALTER COLUMN "ownerId" SET NOT NULL;
ALTER TABLE "ci_pipeline_schedules" ADD CONSTRAINT "ci_pipeline_schedules_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

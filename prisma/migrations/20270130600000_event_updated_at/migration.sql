-- Event.updatedAt (GitLab's events.updated_at): existing events take their creation time.
ALTER TABLE "events" ADD COLUMN "updatedAt" TIMESTAMPTZ(3);
UPDATE "events" SET "updatedAt" = "createdAt";
ALTER TABLE "events" ALTER COLUMN "updatedAt" SET NOT NULL, ALTER COLUMN "updatedAt" SET DEFAULT CURRENT_TIMESTAMP;

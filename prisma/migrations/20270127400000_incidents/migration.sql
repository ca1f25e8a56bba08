-- CreateEnum
CREATE TYPE "IssuableSeverity" AS ENUM ('unknown', 'low', 'medium', 'high', 'critical');

-- CreateEnum
CREATE TYPE "IssueEscalationStatus" AS ENUM ('triggered', 'acknowledged', 'resolved', 'ignored');

-- CreateEnum
CREATE TYPE "IssueHealthStatus" AS ENUM ('on_track', 'needs_attention', 'at_risk');

-- AlterTable
ALTER TABLE "issues" ADD COLUMN     "blockingIssuesCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "escalationStatus" "IssueEscalationStatus",
ADD COLUMN     "healthStatus" "IssueHealthStatus",
ADD COLUMN     "issueType" TEXT NOT NULL DEFAULT 'issue',
ADD COLUMN     "severity" "IssuableSeverity";

-- The open issues each issue already blocks
UPDATE "issues" AS i SET "blockingIssuesCount" = c.n
FROM (
  SELECT l."sourceId" AS id, count(*)::int AS n
  FROM "issue_links" AS l JOIN "issues" AS t ON t."id" = l."targetId"
  WHERE l."linkType" = 'blocks' AND t."state" = 'opened'
  GROUP BY l."sourceId"
) AS c
WHERE i."id" = c.id;

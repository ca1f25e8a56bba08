-- AlterTable
ALTER TABLE "merge_request_reviewers" ADD COLUMN     "state" TEXT NOT NULL DEFAULT 'unreviewed';

-- Backfill: a reviewer who approved the merge request, or started a thread on it, has reviewed it
UPDATE "merge_request_reviewers" r SET "state" = 'reviewed'
WHERE EXISTS (SELECT 1 FROM "merge_request_approvals" a WHERE a."mergeRequestId" = r."mergeRequestId" AND a."userId" = r."userId")
   OR EXISTS (
     SELECT 1 FROM "notes" n
     WHERE n."noteableType" = 'MergeRequest' AND n."noteableId" = r."mergeRequestId" AND n."authorId" = r."userId" AND NOT n."system"
       AND NOT EXISTS (SELECT 1 FROM "notes" e WHERE e."discussionId" = n."discussionId" AND e."id" < n."id")
   );

-- DropIndex
DROP INDEX "notes_noteableType_noteableId_discussionId_idx";

-- DropIndex
DROP INDEX "notes_projectId_noteableType_commitId_discussionId_idx";

-- AlterTable
ALTER TABLE "notes" ADD COLUMN     "startsDiscussion" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "notes_projectId_noteableType_commitId_createdAt_id_idx" ON "notes"("projectId", "noteableType", "commitId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "notes_noteableType_noteableId_createdAt_id_idx" ON "notes"("noteableType", "noteableId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "notes_noteableType_noteableId_updatedAt_id_idx" ON "notes"("noteableType", "noteableId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "notes_discussionId_idx" ON "notes"("discussionId");

-- Each thread's earliest note starts it.
UPDATE "notes" SET "startsDiscussion" = true
WHERE "id" IN (SELECT DISTINCT ON ("discussionId") "id" FROM "notes" ORDER BY "discussionId", "createdAt", "id");

-- The discussions list pages the threads of a noteable (or of a commit) in the order they started, reading only these.
CREATE INDEX "notes_discussion_starts_idx" ON "notes"("noteableType", "noteableId", "createdAt", "id") WHERE "startsDiscussion";
CREATE INDEX "notes_commit_discussion_starts_idx" ON "notes"("projectId", "noteableType", "commitId", "createdAt", "id") WHERE "startsDiscussion";

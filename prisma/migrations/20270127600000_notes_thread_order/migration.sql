-- A thread's notes in their order: a reply reads its thread's first note, and keepThreadStarted its earliest, without sorting the thread.
-- DropIndex
DROP INDEX "notes_discussionId_idx";

-- CreateIndex
CREATE INDEX "notes_discussionId_createdAt_id_idx" ON "notes"("discussionId", "createdAt", "id");

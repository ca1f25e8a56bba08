-- Merge request draft notes (GitLab's DraftNote): a reviewer's pending comments, gone with the merge request or the author.
CREATE TABLE "draft_notes" (
    "id" SERIAL NOT NULL,
    "mergeRequestId" INTEGER NOT NULL,
    "authorId" INTEGER NOT NULL,
    "note" TEXT NOT NULL,
    "discussionId" TEXT,
    "resolveDiscussion" BOOLEAN NOT NULL DEFAULT false,
    "commitId" TEXT,
    "lineCode" TEXT,
    "position" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "draft_notes_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "draft_notes_mergeRequestId_authorId_id_idx" ON "draft_notes"("mergeRequestId", "authorId", "id");

CREATE INDEX "draft_notes_authorId_idx" ON "draft_notes"("authorId");

ALTER TABLE "draft_notes" ADD CONSTRAINT "draft_notes_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "draft_notes" ADD CONSTRAINT "draft_notes_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Merge request context commits (GitLab's merge_request_context_commits): commits added to a merge request for context.
CREATE TABLE "merge_request_context_commits" (
    "id" SERIAL NOT NULL,
    "mergeRequestId" INTEGER NOT NULL,
    "sha" TEXT NOT NULL,
    "relativeOrder" INTEGER NOT NULL,
    "authorName" TEXT NOT NULL,
    "authorEmail" TEXT NOT NULL,
    "authoredDate" TIMESTAMPTZ(3) NOT NULL,
    "committerName" TEXT NOT NULL,
    "committerEmail" TEXT NOT NULL,
    "committedDate" TIMESTAMPTZ(3) NOT NULL,
    "message" TEXT NOT NULL,
    "trailers" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "merge_request_context_commits_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "merge_request_context_commits_mergeRequestId_sha_key" ON "merge_request_context_commits"("mergeRequestId", "sha");

ALTER TABLE "merge_request_context_commits" ADD CONSTRAINT "merge_request_context_commits_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

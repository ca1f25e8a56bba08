-- CreateTable
CREATE TABLE "merge_requests" (
    "id" SERIAL NOT NULL,
    "iid" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "sourceProjectId" INTEGER NOT NULL,
    "sourceBranch" TEXT NOT NULL,
    "targetBranch" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "state" TEXT NOT NULL DEFAULT 'opened',
    "authorId" INTEGER,
    "milestoneId" INTEGER,
    "draft" BOOLEAN NOT NULL DEFAULT false,
    "squash" BOOLEAN NOT NULL DEFAULT false,
    "forceRemoveSourceBranch" BOOLEAN NOT NULL DEFAULT false,
    "discussionLocked" BOOLEAN,
    "headSha" TEXT,
    "baseSha" TEXT,
    "startSha" TEXT,
    "mergeCommitSha" TEXT,
    "squashCommitSha" TEXT,
    "mergeUserId" INTEGER,
    "mergedAt" TIMESTAMPTZ(3),
    "closedById" INTEGER,
    "closedAt" TIMESTAMPTZ(3),
    "timeEstimate" INTEGER NOT NULL DEFAULT 0,
    "totalTimeSpent" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merge_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "merge_request_assignees" (
    "mergeRequestId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merge_request_assignees_pkey" PRIMARY KEY ("mergeRequestId","userId")
);

-- CreateTable
CREATE TABLE "merge_request_reviewers" (
    "mergeRequestId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merge_request_reviewers_pkey" PRIMARY KEY ("mergeRequestId","userId")
);

-- CreateIndex
CREATE INDEX "merge_requests_projectId_state_id_idx" ON "merge_requests"("projectId", "state", "id");

-- CreateIndex
CREATE INDEX "merge_requests_projectId_sourceBranch_targetBranch_idx" ON "merge_requests"("projectId", "sourceBranch", "targetBranch");

-- CreateIndex
CREATE INDEX "merge_requests_authorId_idx" ON "merge_requests"("authorId");

-- CreateIndex
CREATE INDEX "merge_requests_milestoneId_idx" ON "merge_requests"("milestoneId");

-- CreateIndex
CREATE UNIQUE INDEX "merge_requests_projectId_iid_key" ON "merge_requests"("projectId", "iid");

-- CreateIndex
CREATE INDEX "merge_request_assignees_userId_idx" ON "merge_request_assignees"("userId");

-- CreateIndex
CREATE INDEX "merge_request_reviewers_userId_idx" ON "merge_request_reviewers"("userId");

-- AddForeignKey
ALTER TABLE "merge_requests" ADD CONSTRAINT "merge_requests_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merge_requests" ADD CONSTRAINT "merge_requests_milestoneId_fkey" FOREIGN KEY ("milestoneId") REFERENCES "milestones"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merge_request_assignees" ADD CONSTRAINT "merge_request_assignees_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merge_request_reviewers" ADD CONSTRAINT "merge_request_reviewers_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

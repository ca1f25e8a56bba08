-- CreateTable
CREATE TABLE "issues" (
    "id" SERIAL NOT NULL,
    "iid" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "state" TEXT NOT NULL DEFAULT 'opened',
    "authorId" INTEGER,
    "confidential" BOOLEAN NOT NULL DEFAULT false,
    "dueDate" DATE,
    "weight" INTEGER,
    "discussionLocked" BOOLEAN,
    "milestoneId" INTEGER,
    "closedAt" TIMESTAMPTZ(3),
    "closedById" INTEGER,
    "timeEstimate" INTEGER NOT NULL DEFAULT 0,
    "totalTimeSpent" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issue_assignees" (
    "issueId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issue_assignees_pkey" PRIMARY KEY ("issueId","userId")
);

-- CreateTable
CREATE TABLE "label_links" (
    "id" SERIAL NOT NULL,
    "labelId" INTEGER NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "label_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "issues_projectId_state_id_idx" ON "issues"("projectId", "state", "id");

-- CreateIndex
CREATE INDEX "issues_authorId_idx" ON "issues"("authorId");

-- CreateIndex
CREATE INDEX "issues_milestoneId_idx" ON "issues"("milestoneId");

-- CreateIndex
CREATE UNIQUE INDEX "issues_projectId_iid_key" ON "issues"("projectId", "iid");

-- CreateIndex
CREATE INDEX "issue_assignees_userId_idx" ON "issue_assignees"("userId");

-- CreateIndex
CREATE INDEX "label_links_labelId_targetType_idx" ON "label_links"("labelId", "targetType");

-- CreateIndex
CREATE UNIQUE INDEX "label_links_targetType_targetId_labelId_key" ON "label_links"("targetType", "targetId", "labelId");

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_milestoneId_fkey" FOREIGN KEY ("milestoneId") REFERENCES "milestones"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_closedById_fkey" FOREIGN KEY ("closedById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_assignees" ADD CONSTRAINT "issue_assignees_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_assignees" ADD CONSTRAINT "issue_assignees_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "label_links" ADD CONSTRAINT "label_links_labelId_fkey" FOREIGN KEY ("labelId") REFERENCES "labels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

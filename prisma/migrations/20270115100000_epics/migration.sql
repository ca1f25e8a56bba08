-- CreateTable
CREATE TABLE "epics" (
    "id" SERIAL NOT NULL,
    "iid" INTEGER NOT NULL,
    "groupId" INTEGER NOT NULL,
    "parentId" INTEGER,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "state" TEXT NOT NULL DEFAULT 'opened',
    "confidential" BOOLEAN NOT NULL DEFAULT false,
    "authorId" INTEGER,
    "closedById" INTEGER,
    "closedAt" TIMESTAMPTZ(3),
    "startDateFixed" DATE,
    "startDateIsFixed" BOOLEAN NOT NULL DEFAULT false,
    "dueDateFixed" DATE,
    "dueDateIsFixed" BOOLEAN NOT NULL DEFAULT false,
    "color" TEXT NOT NULL DEFAULT '#1068bf',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "epics_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "epic_issues" (
    "id" SERIAL NOT NULL,
    "epicId" INTEGER NOT NULL,
    "issueId" INTEGER NOT NULL,
    "relativePosition" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "epic_issues_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "epics_parentId_idx" ON "epics"("parentId");

-- CreateIndex
CREATE INDEX "epics_authorId_idx" ON "epics"("authorId");

-- CreateIndex
CREATE UNIQUE INDEX "epics_groupId_iid_key" ON "epics"("groupId", "iid");

-- CreateIndex
CREATE UNIQUE INDEX "epic_issues_issueId_key" ON "epic_issues"("issueId");

-- CreateIndex
CREATE INDEX "epic_issues_epicId_relativePosition_idx" ON "epic_issues"("epicId", "relativePosition");

-- AddForeignKey
ALTER TABLE "epics" ADD CONSTRAINT "epics_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epics" ADD CONSTRAINT "epics_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "epics"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epics" ADD CONSTRAINT "epics_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epics" ADD CONSTRAINT "epics_closedById_fkey" FOREIGN KEY ("closedById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epic_issues" ADD CONSTRAINT "epic_issues_epicId_fkey" FOREIGN KEY ("epicId") REFERENCES "epics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "epic_issues" ADD CONSTRAINT "epic_issues_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "issues" ADD COLUMN     "duplicatedToId" INTEGER,
ADD COLUMN     "updatedById" INTEGER;

-- CreateTable
CREATE TABLE "timelogs" (
    "id" SERIAL NOT NULL,
    "timeSpent" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "issueId" INTEGER,
    "mergeRequestId" INTEGER,
    "projectId" INTEGER NOT NULL,
    "noteId" INTEGER,
    "spentAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "summary" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "timelogs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "timelogs_issueId_id_idx" ON "timelogs"("issueId", "id");

-- CreateIndex
CREATE INDEX "timelogs_mergeRequestId_id_idx" ON "timelogs"("mergeRequestId", "id");

-- CreateIndex
CREATE INDEX "timelogs_projectId_spentAt_idx" ON "timelogs"("projectId", "spentAt");

-- CreateIndex
CREATE INDEX "timelogs_userId_spentAt_idx" ON "timelogs"("userId", "spentAt");

-- CreateIndex
CREATE INDEX "timelogs_noteId_idx" ON "timelogs"("noteId");

-- CreateIndex
CREATE INDEX "issues_duplicatedToId_idx" ON "issues"("duplicatedToId");

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_duplicatedToId_fkey" FOREIGN KEY ("duplicatedToId") REFERENCES "issues"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "timelogs" ADD CONSTRAINT "timelogs_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "timelogs" ADD CONSTRAINT "timelogs_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "timelogs" ADD CONSTRAINT "timelogs_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "timelogs" ADD CONSTRAINT "timelogs_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "timelogs" ADD CONSTRAINT "timelogs_noteId_fkey" FOREIGN KEY ("noteId") REFERENCES "notes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Spent time recorded before timelogs existed becomes one timelog of its issuable's author, so totals stay the sum of timelogs
INSERT INTO "timelogs" ("timeSpent", "userId", "issueId", "projectId", "spentAt", "createdAt", "updatedAt")
SELECT "totalTimeSpent", "authorId", "id", "projectId", "updatedAt", "updatedAt", "updatedAt" FROM "issues" WHERE "totalTimeSpent" <> 0 AND "authorId" IS NOT NULL;
INSERT INTO "timelogs" ("timeSpent", "userId", "mergeRequestId", "projectId", "spentAt", "createdAt", "updatedAt")
SELECT "totalTimeSpent", "authorId", "id", "projectId", "updatedAt", "updatedAt", "updatedAt" FROM "merge_requests" WHERE "totalTimeSpent" <> 0 AND "authorId" IS NOT NULL;

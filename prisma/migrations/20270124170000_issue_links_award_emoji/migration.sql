-- Issue links (GitLab's issue_links) and award emoji (GitLab's award_emoji, its polymorphic awardable as one foreign
-- key per kind).
-- CreateTable
CREATE TABLE "issue_links" (
    "id" SERIAL NOT NULL,
    "sourceId" INTEGER NOT NULL,
    "targetId" INTEGER NOT NULL,
    "linkType" TEXT NOT NULL DEFAULT 'relates_to',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issue_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "award_emoji" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "userId" INTEGER NOT NULL,
    "issueId" INTEGER,
    "mergeRequestId" INTEGER,
    "snippetId" INTEGER,
    "epicId" INTEGER,
    "noteId" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "award_emoji_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "issue_links_targetId_idx" ON "issue_links"("targetId");

-- CreateIndex
CREATE UNIQUE INDEX "issue_links_sourceId_targetId_key" ON "issue_links"("sourceId", "targetId");

-- CreateIndex
CREATE INDEX "award_emoji_userId_idx" ON "award_emoji"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "award_emoji_issueId_userId_name_key" ON "award_emoji"("issueId", "userId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "award_emoji_mergeRequestId_userId_name_key" ON "award_emoji"("mergeRequestId", "userId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "award_emoji_snippetId_userId_name_key" ON "award_emoji"("snippetId", "userId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "award_emoji_epicId_userId_name_key" ON "award_emoji"("epicId", "userId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "award_emoji_noteId_userId_name_key" ON "award_emoji"("noteId", "userId", "name");

-- AddForeignKey
ALTER TABLE "issue_links" ADD CONSTRAINT "issue_links_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_links" ADD CONSTRAINT "issue_links_targetId_fkey" FOREIGN KEY ("targetId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "award_emoji" ADD CONSTRAINT "award_emoji_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "award_emoji" ADD CONSTRAINT "award_emoji_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "award_emoji" ADD CONSTRAINT "award_emoji_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "award_emoji" ADD CONSTRAINT "award_emoji_snippetId_fkey" FOREIGN KEY ("snippetId") REFERENCES "snippets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "award_emoji" ADD CONSTRAINT "award_emoji_epicId_fkey" FOREIGN KEY ("epicId") REFERENCES "epics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "award_emoji" ADD CONSTRAINT "award_emoji_noteId_fkey" FOREIGN KEY ("noteId") REFERENCES "notes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Exactly one awardable per award.
ALTER TABLE "award_emoji" ADD CONSTRAINT "award_emoji_one_awardable" CHECK (num_nonnulls("issueId", "mergeRequestId", "snippetId", "epicId", "noteId") = 1);

-- An issue is never related to itself.
ALTER TABLE "issue_links" ADD CONSTRAINT "issue_links_not_self" CHECK ("sourceId" <> "targetId");

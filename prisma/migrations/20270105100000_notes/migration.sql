-- CreateTable
CREATE TABLE "notes" (
    "id" SERIAL NOT NULL,
    "noteableType" TEXT NOT NULL,
    "noteableId" INTEGER,
    "commitId" TEXT,
    "projectId" INTEGER,
    "groupId" INTEGER,
    "discussionId" TEXT NOT NULL,
    "type" TEXT,
    "note" TEXT NOT NULL,
    "authorId" INTEGER NOT NULL,
    "system" BOOLEAN NOT NULL DEFAULT false,
    "internal" BOOLEAN NOT NULL DEFAULT false,
    "position" JSONB,
    "path" TEXT,
    "line" INTEGER,
    "lineType" TEXT,
    "lineCode" TEXT,
    "lastEditedAt" TIMESTAMPTZ(3),
    "updatedById" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "notes_projectId_noteableType_commitId_discussionId_idx" ON "notes"("projectId", "noteableType", "commitId", "discussionId");

-- CreateIndex
CREATE INDEX "notes_noteableType_noteableId_discussionId_idx" ON "notes"("noteableType", "noteableId", "discussionId");

-- CreateIndex
CREATE INDEX "notes_groupId_idx" ON "notes"("groupId");

-- CreateIndex
CREATE INDEX "notes_authorId_idx" ON "notes"("authorId");

-- AddForeignKey
ALTER TABLE "notes" ADD CONSTRAINT "notes_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notes" ADD CONSTRAINT "notes_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notes" ADD CONSTRAINT "notes_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "todos" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "authorId" INTEGER NOT NULL,
    "projectId" INTEGER,
    "groupId" INTEGER,
    "targetType" TEXT NOT NULL,
    "targetId" INTEGER,
    "issueId" INTEGER,
    "alertId" INTEGER,
    "commitId" TEXT,
    "noteId" INTEGER,
    "action" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "todos_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "todos_userId_state_id_idx" ON "todos"("userId", "state", "id");

-- CreateIndex
CREATE INDEX "todos_issueId_idx" ON "todos"("issueId");

-- CreateIndex
CREATE INDEX "todos_alertId_idx" ON "todos"("alertId");

-- CreateIndex
CREATE INDEX "todos_noteId_idx" ON "todos"("noteId");

-- CreateIndex
CREATE INDEX "todos_projectId_idx" ON "todos"("projectId");

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_alertId_fkey" FOREIGN KEY ("alertId") REFERENCES "alert_management_alerts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "todos" ADD CONSTRAINT "todos_noteId_fkey" FOREIGN KEY ("noteId") REFERENCES "notes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

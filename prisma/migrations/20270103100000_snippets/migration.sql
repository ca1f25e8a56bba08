-- CreateTable
CREATE TABLE "snippets" (
    "id" SERIAL NOT NULL,
    "type" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "visibility" TEXT NOT NULL,
    "authorId" INTEGER NOT NULL,
    "projectId" INTEGER,
    "repositoryStorage" TEXT NOT NULL DEFAULT 'default',
    "repositoryReadOnly" BOOLEAN NOT NULL DEFAULT false,
    "pendingDelete" BOOLEAN NOT NULL DEFAULT false,
    "userAgent" TEXT,
    "ipAddress" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "snippets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "snippets_authorId_id_idx" ON "snippets"("authorId", "id");

-- CreateIndex
CREATE INDEX "snippets_projectId_id_idx" ON "snippets"("projectId", "id");

-- CreateIndex
CREATE INDEX "snippets_visibility_id_idx" ON "snippets"("visibility", "id");

-- CreateIndex
CREATE INDEX "snippets_repositoryStorage_id_idx" ON "snippets"("repositoryStorage", "id");

-- AddForeignKey
ALTER TABLE "snippets" ADD CONSTRAINT "snippets_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snippets" ADD CONSTRAINT "snippets_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "snippet_repository_storage_moves" (
    "id" SERIAL NOT NULL,
    "snippetId" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'initial',
    "sourceStorageName" TEXT NOT NULL,
    "destinationStorageName" TEXT NOT NULL,
    "errorMessage" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "snippet_repository_storage_moves_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "snippet_repository_storage_moves_snippetId_id_idx" ON "snippet_repository_storage_moves"("snippetId", "id");

-- CreateIndex
CREATE INDEX "snippet_repository_storage_moves_createdAt_id_idx" ON "snippet_repository_storage_moves"("createdAt", "id");

-- AddForeignKey
ALTER TABLE "snippet_repository_storage_moves" ADD CONSTRAINT "snippet_repository_storage_moves_snippetId_fkey" FOREIGN KEY ("snippetId") REFERENCES "snippets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

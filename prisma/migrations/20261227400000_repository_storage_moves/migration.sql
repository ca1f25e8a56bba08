-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "repositoryReadOnly" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "group_wiki_repositories" (
    "groupId" INTEGER NOT NULL,
    "shardName" TEXT NOT NULL,
    "readOnly" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "group_wiki_repositories_pkey" PRIMARY KEY ("groupId")
);

-- CreateTable
CREATE TABLE "project_repository_storage_moves" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'initial',
    "sourceStorageName" TEXT NOT NULL,
    "destinationStorageName" TEXT NOT NULL,
    "errorMessage" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "project_repository_storage_moves_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "group_repository_storage_moves" (
    "id" SERIAL NOT NULL,
    "groupId" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'initial',
    "sourceStorageName" TEXT NOT NULL,
    "destinationStorageName" TEXT NOT NULL,
    "errorMessage" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "group_repository_storage_moves_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "group_wiki_repositories_shardName_groupId_idx" ON "group_wiki_repositories"("shardName", "groupId");

-- CreateIndex
CREATE INDEX "project_repository_storage_moves_projectId_id_idx" ON "project_repository_storage_moves"("projectId", "id");

-- CreateIndex
CREATE INDEX "project_repository_storage_moves_createdAt_id_idx" ON "project_repository_storage_moves"("createdAt", "id");

-- CreateIndex
CREATE INDEX "group_repository_storage_moves_groupId_id_idx" ON "group_repository_storage_moves"("groupId", "id");

-- CreateIndex
CREATE INDEX "group_repository_storage_moves_createdAt_id_idx" ON "group_repository_storage_moves"("createdAt", "id");

-- AddForeignKey
ALTER TABLE "group_wiki_repositories" ADD CONSTRAINT "group_wiki_repositories_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_repository_storage_moves" ADD CONSTRAINT "project_repository_storage_moves_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_repository_storage_moves" ADD CONSTRAINT "group_repository_storage_moves_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

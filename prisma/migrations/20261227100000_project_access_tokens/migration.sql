-- AlterTable
ALTER TABLE "personal_access_tokens" ADD COLUMN     "previousPersonalAccessTokenId" INTEGER;

-- CreateTable
CREATE TABLE "project_bots" (
    "userId" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "accessLevel" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "project_bots_pkey" PRIMARY KEY ("userId")
);

-- CreateIndex
CREATE INDEX "project_bots_projectId_userId_idx" ON "project_bots"("projectId", "userId");

-- CreateIndex
CREATE INDEX "personal_access_tokens_previousPersonalAccessTokenId_idx" ON "personal_access_tokens"("previousPersonalAccessTokenId");

-- AddForeignKey
ALTER TABLE "project_bots" ADD CONSTRAINT "project_bots_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_bots" ADD CONSTRAINT "project_bots_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

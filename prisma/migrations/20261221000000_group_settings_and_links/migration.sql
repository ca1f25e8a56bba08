-- AlterTable
ALTER TABLE "namespaces" ADD COLUMN     "autoDevopsEnabled" BOOLEAN,
ADD COLUMN     "defaultBranchName" TEXT,
ADD COLUMN     "emailsEnabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "lfsEnabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "mentionsDisabled" BOOLEAN,
ADD COLUMN     "projectCreationLevel" TEXT NOT NULL DEFAULT 'developer',
ADD COLUMN     "requestAccessEnabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "requireTwoFactorAuthentication" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "shareWithGroupLock" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "subgroupCreationLevel" TEXT NOT NULL DEFAULT 'maintainer',
ADD COLUMN     "twoFactorGracePeriod" INTEGER NOT NULL DEFAULT 48;

-- CreateTable
CREATE TABLE "group_group_links" (
    "id" SERIAL NOT NULL,
    "sharedGroupId" INTEGER NOT NULL,
    "sharedWithGroupId" INTEGER NOT NULL,
    "groupAccess" INTEGER NOT NULL,
    "expiresAt" DATE,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "group_group_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "project_group_links" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "groupId" INTEGER NOT NULL,
    "groupAccess" INTEGER NOT NULL,
    "expiresAt" DATE,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "project_group_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "group_group_links_sharedWithGroupId_idx" ON "group_group_links"("sharedWithGroupId");

-- CreateIndex
CREATE UNIQUE INDEX "group_group_links_sharedGroupId_sharedWithGroupId_key" ON "group_group_links"("sharedGroupId", "sharedWithGroupId");

-- CreateIndex
CREATE INDEX "project_group_links_groupId_idx" ON "project_group_links"("groupId");

-- CreateIndex
CREATE UNIQUE INDEX "project_group_links_projectId_groupId_key" ON "project_group_links"("projectId", "groupId");

-- AddForeignKey
ALTER TABLE "group_group_links" ADD CONSTRAINT "group_group_links_sharedGroupId_fkey" FOREIGN KEY ("sharedGroupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_group_links" ADD CONSTRAINT "group_group_links_sharedWithGroupId_fkey" FOREIGN KEY ("sharedWithGroupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_group_links" ADD CONSTRAINT "project_group_links_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_group_links" ADD CONSTRAINT "project_group_links_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "web_hooks" ADD COLUMN     "customHeaders" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "groupId" INTEGER,
ADD COLUMN     "memberEvents" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "projectEvents" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "subgroupEvents" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "web_hooks_groupId_id_idx" ON "web_hooks"("groupId", "id");

-- AddForeignKey
ALTER TABLE "web_hooks" ADD CONSTRAINT "web_hooks_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

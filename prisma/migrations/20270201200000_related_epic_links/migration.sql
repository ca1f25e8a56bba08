-- Related epics (GitLab's related_epic_links): two-way relations between epics, `relates_to` or `blocks`.
-- CreateTable
CREATE TABLE "related_epic_links" (
    "id" SERIAL NOT NULL,
    "sourceId" INTEGER NOT NULL,
    "targetId" INTEGER NOT NULL,
    "linkType" TEXT NOT NULL DEFAULT 'relates_to',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "related_epic_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "related_epic_links_targetId_idx" ON "related_epic_links"("targetId");

-- CreateIndex
CREATE UNIQUE INDEX "related_epic_links_sourceId_targetId_key" ON "related_epic_links"("sourceId", "targetId");

-- AddForeignKey
ALTER TABLE "related_epic_links" ADD CONSTRAINT "related_epic_links_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "epics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "related_epic_links" ADD CONSTRAINT "related_epic_links_targetId_fkey" FOREIGN KEY ("targetId") REFERENCES "epics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

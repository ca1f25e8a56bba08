-- Label links name their issuable by one foreign key per kind instead of (targetType, targetId), so lists filter by
-- label in SQL (a relation filter) and a deleted issuable takes its links with it. Existing links are kept, links
-- whose issuable is already gone are dropped.
ALTER TABLE "label_links" ADD COLUMN "issueId" INTEGER,
ADD COLUMN "mergeRequestId" INTEGER,
ADD COLUMN "epicId" INTEGER;

UPDATE "label_links" l SET "issueId" = l."targetId" WHERE l."targetType" = 'Issue' AND EXISTS (SELECT 1 FROM "issues" i WHERE i."id" = l."targetId");
UPDATE "label_links" l SET "mergeRequestId" = l."targetId" WHERE l."targetType" = 'MergeRequest' AND EXISTS (SELECT 1 FROM "merge_requests" m WHERE m."id" = l."targetId");
UPDATE "label_links" l SET "epicId" = l."targetId" WHERE l."targetType" = 'Epic' AND EXISTS (SELECT 1 FROM "epics" e WHERE e."id" = l."targetId");
DELETE FROM "label_links" WHERE num_nonnulls("issueId", "mergeRequestId", "epicId") <> 1;

-- DropIndex
DROP INDEX "label_links_labelId_targetType_idx";

-- DropIndex
DROP INDEX "label_links_targetType_targetId_labelId_key";

ALTER TABLE "label_links" DROP COLUMN "targetId",
DROP COLUMN "targetType";

-- Exactly one issuable per link.
ALTER TABLE "label_links" ADD CONSTRAINT "label_links_one_target" CHECK (num_nonnulls("issueId", "mergeRequestId", "epicId") = 1);

-- CreateIndex
CREATE INDEX "label_links_labelId_idx" ON "label_links"("labelId");

-- CreateIndex
CREATE UNIQUE INDEX "label_links_issueId_labelId_key" ON "label_links"("issueId", "labelId");

-- CreateIndex
CREATE UNIQUE INDEX "label_links_mergeRequestId_labelId_key" ON "label_links"("mergeRequestId", "labelId");

-- CreateIndex
CREATE UNIQUE INDEX "label_links_epicId_labelId_key" ON "label_links"("epicId", "labelId");

-- AddForeignKey
ALTER TABLE "label_links" ADD CONSTRAINT "label_links_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "label_links" ADD CONSTRAINT "label_links_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "label_links" ADD CONSTRAINT "label_links_epicId_fkey" FOREIGN KEY ("epicId") REFERENCES "epics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- DropIndex
DROP INDEX "epics_parentId_idx";

-- AlterTable
ALTER TABLE "epics" ADD COLUMN     "relativePosition" INTEGER;

-- CreateIndex
CREATE INDEX "epics_parentId_relativePosition_idx" ON "epics"("parentId", "relativePosition");

-- AlterTable
ALTER TABLE "issues" ADD COLUMN     "movedToId" INTEGER;

-- CreateIndex
CREATE INDEX "issues_movedToId_idx" ON "issues"("movedToId");

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_movedToId_fkey" FOREIGN KEY ("movedToId") REFERENCES "issues"("id") ON DELETE SET NULL ON UPDATE CASCADE;

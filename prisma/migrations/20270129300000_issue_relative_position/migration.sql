-- AlterTable
ALTER TABLE "issues" ADD COLUMN     "relativePosition" INTEGER;

-- CreateIndex
CREATE INDEX "issues_projectId_relativePosition_idx" ON "issues"("projectId", "relativePosition");

-- Issues whose author was deleted before issues always went to the ghost user belong to the ghost user, when there is one.
UPDATE "issues" SET "authorId" = (SELECT "id" FROM "users" WHERE "userType" = 'ghost' ORDER BY "id" LIMIT 1)
WHERE "authorId" IS NULL AND EXISTS (SELECT 1 FROM "users" WHERE "userType" = 'ghost');

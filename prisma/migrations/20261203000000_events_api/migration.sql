-- AlterTable
ALTER TABLE "users" ADD COLUMN     "privateProfile" BOOLEAN NOT NULL DEFAULT false;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "ci_builds" ADD COLUMN     "traceHeld" BYTEA;

-- AlterTable
ALTER TABLE "ci_runners" ADD COLUMN     "executorType" TEXT,
ADD COLUMN     "name" TEXT;

-- AddForeignKey
ALTER TABLE "ci_runners" ADD CONSTRAINT "ci_runners_namespaceId_fkey" FOREIGN KEY ("namespaceId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_runner_projects" ADD CONSTRAINT "ci_runner_projects_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

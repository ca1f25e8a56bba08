-- AlterTable
ALTER TABLE "ci_builds" ADD COLUMN     "autoCanceledById" INTEGER,
ADD COLUMN     "resourceGroupId" INTEGER;

-- AlterTable
ALTER TABLE "ci_pipelines" ADD COLUMN     "autoCanceledById" INTEGER;

-- CreateTable
CREATE TABLE "ci_resource_groups" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "processMode" TEXT NOT NULL DEFAULT 'unordered',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ci_resource_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_resources" (
    "id" SERIAL NOT NULL,
    "resourceGroupId" INTEGER NOT NULL,
    "buildId" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ci_resources_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ci_resource_groups_projectId_key_key" ON "ci_resource_groups"("projectId", "key");

-- CreateIndex
CREATE UNIQUE INDEX "ci_resources_buildId_key" ON "ci_resources"("buildId");

-- CreateIndex
CREATE INDEX "ci_resources_resourceGroupId_idx" ON "ci_resources"("resourceGroupId");

-- CreateIndex
CREATE INDEX "ci_builds_resourceGroupId_status_idx" ON "ci_builds"("resourceGroupId", "status");

-- AddForeignKey
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_autoCanceledById_fkey" FOREIGN KEY ("autoCanceledById") REFERENCES "ci_pipelines"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_builds" ADD CONSTRAINT "ci_builds_resourceGroupId_fkey" FOREIGN KEY ("resourceGroupId") REFERENCES "ci_resource_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_builds" ADD CONSTRAINT "ci_builds_autoCanceledById_fkey" FOREIGN KEY ("autoCanceledById") REFERENCES "ci_pipelines"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_resource_groups" ADD CONSTRAINT "ci_resource_groups_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_resources" ADD CONSTRAINT "ci_resources_resourceGroupId_fkey" FOREIGN KEY ("resourceGroupId") REFERENCES "ci_resource_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_resources" ADD CONSTRAINT "ci_resources_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "ci_builds"("id") ON DELETE SET NULL ON UPDATE CASCADE;

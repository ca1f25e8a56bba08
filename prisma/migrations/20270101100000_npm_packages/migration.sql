-- CreateTable
CREATE TABLE "packages_npm_metadata" (
    "packageId" INTEGER NOT NULL,
    "packageJson" JSONB NOT NULL,
    "integrity" TEXT NOT NULL,

    CONSTRAINT "packages_npm_metadata_pkey" PRIMARY KEY ("packageId")
);

-- CreateTable
CREATE TABLE "packages_tags" (
    "id" SERIAL NOT NULL,
    "packageId" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "packageType" TEXT NOT NULL,
    "packageName" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "packages_tags_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "packages_tags_packageId_idx" ON "packages_tags"("packageId");

-- CreateIndex
CREATE UNIQUE INDEX "packages_tags_projectId_packageType_packageName_name_key" ON "packages_tags"("projectId", "packageType", "packageName", "name");

-- AddForeignKey
ALTER TABLE "packages_npm_metadata" ADD CONSTRAINT "packages_npm_metadata_packageId_fkey" FOREIGN KEY ("packageId") REFERENCES "packages_packages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "packages_tags" ADD CONSTRAINT "packages_tags_packageId_fkey" FOREIGN KEY ("packageId") REFERENCES "packages_packages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One npm package per name and version in a project, but for one being destroyed (Packages::Npm::CreatePackageService's
-- check, made safe against two publications at once). Prisma's schema cannot express a partial index.
CREATE UNIQUE INDEX "packages_npm_name_version_key" ON "packages_packages"("projectId", "name", "version") WHERE "packageType" = 'npm' AND "status" <> 'pending_destruction';

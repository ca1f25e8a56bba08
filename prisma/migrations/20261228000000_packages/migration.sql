-- CreateTable
CREATE TABLE "packages_packages" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT,
    "packageType" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'default',
    "statusMessage" TEXT,
    "creatorId" INTEGER,
    "lastDownloadedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "packages_packages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "packages_package_files" (
    "id" SERIAL NOT NULL,
    "packageId" INTEGER NOT NULL,
    "fileName" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "fileMd5" TEXT NOT NULL,
    "fileSha1" TEXT NOT NULL,
    "fileSha256" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'default',
    "pipelineId" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "packages_package_files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "packages_build_infos" (
    "id" SERIAL NOT NULL,
    "packageId" INTEGER NOT NULL,
    "pipelineId" INTEGER NOT NULL,

    CONSTRAINT "packages_build_infos_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "packages_packages_projectId_packageType_name_version_idx" ON "packages_packages"("projectId", "packageType", "name", "version");

-- CreateIndex
CREATE INDEX "packages_packages_projectId_createdAt_id_idx" ON "packages_packages"("projectId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "packages_package_files_packageId_id_idx" ON "packages_package_files"("packageId", "id");

-- CreateIndex
CREATE INDEX "packages_package_files_fileSha256_idx" ON "packages_package_files"("fileSha256");

-- CreateIndex
CREATE UNIQUE INDEX "packages_build_infos_packageId_pipelineId_key" ON "packages_build_infos"("packageId", "pipelineId");

-- AddForeignKey
ALTER TABLE "packages_packages" ADD CONSTRAINT "packages_packages_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "packages_package_files" ADD CONSTRAINT "packages_package_files_packageId_fkey" FOREIGN KEY ("packageId") REFERENCES "packages_packages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "packages_build_infos" ADD CONSTRAINT "packages_build_infos_packageId_fkey" FOREIGN KEY ("packageId") REFERENCES "packages_packages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

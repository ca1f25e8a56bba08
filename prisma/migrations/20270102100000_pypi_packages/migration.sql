-- CreateTable
CREATE TABLE "packages_pypi_metadata" (
    "packageId" INTEGER NOT NULL,
    "requiredPython" TEXT NOT NULL DEFAULT '',
    "metadataVersion" TEXT,
    "summary" TEXT,
    "keywords" TEXT,
    "authorEmail" TEXT,
    "description" TEXT,
    "descriptionContentType" TEXT,

    CONSTRAINT "packages_pypi_metadata_pkey" PRIMARY KEY ("packageId")
);

-- AddForeignKey
ALTER TABLE "packages_pypi_metadata" ADD CONSTRAINT "packages_pypi_metadata_packageId_fkey" FOREIGN KEY ("packageId") REFERENCES "packages_packages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "project_error_tracking_settings" (
    "projectId" INTEGER NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "integrated" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "project_error_tracking_settings_pkey" PRIMARY KEY ("projectId")
);

-- AddForeignKey
ALTER TABLE "project_error_tracking_settings" ADD CONSTRAINT "project_error_tracking_settings_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "application_settings" (
    "id" INTEGER NOT NULL,
    "ciJwtSigningKey" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "application_settings_pkey" PRIMARY KEY ("id")
);

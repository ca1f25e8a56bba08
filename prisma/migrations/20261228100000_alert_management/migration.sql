-- CreateEnum
CREATE TYPE "AlertManagementSeverity" AS ENUM ('critical', 'high', 'medium', 'low', 'info', 'unknown');

-- CreateEnum
CREATE TYPE "AlertManagementStatus" AS ENUM ('triggered', 'acknowledged', 'resolved', 'ignored');

-- CreateTable
CREATE TABLE "alert_management_http_integrations" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT false,
    "endpointIdentifier" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "typeIdentifier" TEXT NOT NULL DEFAULT 'http',
    "apiUrl" TEXT,
    "payloadExample" JSONB NOT NULL DEFAULT '{}',
    "payloadAttributeMapping" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_management_http_integrations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_management_alerts" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "iid" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "service" TEXT,
    "monitoringTool" TEXT,
    "hosts" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "severity" "AlertManagementSeverity" NOT NULL DEFAULT 'critical',
    "status" "AlertManagementStatus" NOT NULL DEFAULT 'triggered',
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "endedAt" TIMESTAMPTZ(3),
    "events" INTEGER NOT NULL DEFAULT 1,
    "fingerprint" TEXT,
    "environment" TEXT,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_management_alerts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_management_alert_assignees" (
    "alertId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_management_alert_assignees_pkey" PRIMARY KEY ("alertId","userId")
);

-- CreateTable
CREATE TABLE "alert_management_metric_images" (
    "id" SERIAL NOT NULL,
    "alertId" INTEGER NOT NULL,
    "file" TEXT NOT NULL,
    "url" TEXT,
    "urlText" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_management_metric_images_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alert_management_http_integrations_projectId_typeIdentifier_idx" ON "alert_management_http_integrations"("projectId", "typeIdentifier", "id");

-- CreateIndex
CREATE UNIQUE INDEX "alert_management_http_integrations_projectId_endpointIdenti_key" ON "alert_management_http_integrations"("projectId", "endpointIdentifier");

-- CreateIndex
CREATE INDEX "alert_management_alerts_projectId_fingerprint_idx" ON "alert_management_alerts"("projectId", "fingerprint");

-- CreateIndex
CREATE UNIQUE INDEX "alert_management_alerts_projectId_iid_key" ON "alert_management_alerts"("projectId", "iid");

-- CreateIndex
CREATE INDEX "alert_management_alert_assignees_userId_idx" ON "alert_management_alert_assignees"("userId");

-- CreateIndex
CREATE INDEX "alert_management_metric_images_alertId_id_idx" ON "alert_management_metric_images"("alertId", "id");

-- AddForeignKey
ALTER TABLE "alert_management_http_integrations" ADD CONSTRAINT "alert_management_http_integrations_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_management_alerts" ADD CONSTRAINT "alert_management_alerts_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_management_alert_assignees" ADD CONSTRAINT "alert_management_alert_assignees_alertId_fkey" FOREIGN KEY ("alertId") REFERENCES "alert_management_alerts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_management_alert_assignees" ADD CONSTRAINT "alert_management_alert_assignees_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_management_metric_images" ADD CONSTRAINT "alert_management_metric_images_alertId_fkey" FOREIGN KEY ("alertId") REFERENCES "alert_management_alerts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One unresolved alert per fingerprint and project (GitLab's index of that name): concurrent duplicates meet here.
CREATE UNIQUE INDEX "alert_management_alerts_unresolved_fingerprint_key" ON "alert_management_alerts"("projectId", "fingerprint") WHERE "status" <> 'resolved' AND "fingerprint" IS NOT NULL;

-- An alert's incident (GitLab's alert_management_alerts.issue_id) and the incident settings that create and close incidents for alerts

-- AlterTable
ALTER TABLE "alert_management_alerts" ADD COLUMN "issueId" INTEGER;

-- AlterTable
ALTER TABLE "project_incident_management_settings" ADD COLUMN "createIssue" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "autoCloseIncident" BOOLEAN NOT NULL DEFAULT true;

-- CreateIndex
CREATE INDEX "alert_management_alerts_issueId_idx" ON "alert_management_alerts"("issueId");

-- AddForeignKey
ALTER TABLE "alert_management_alerts" ADD CONSTRAINT "alert_management_alerts_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE SET NULL ON UPDATE CASCADE;

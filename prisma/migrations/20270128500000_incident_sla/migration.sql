-- CreateTable
CREATE TABLE "project_incident_management_settings" (
    "projectId" INTEGER NOT NULL,
    "slaTimer" BOOLEAN NOT NULL DEFAULT false,
    "slaTimerMinutes" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "project_incident_management_settings_pkey" PRIMARY KEY ("projectId")
);

-- CreateTable
CREATE TABLE "issuable_slas" (
    "id" SERIAL NOT NULL,
    "issueId" INTEGER NOT NULL,
    "dueAt" TIMESTAMPTZ(3) NOT NULL,
    "labelApplied" BOOLEAN NOT NULL DEFAULT false,
    "issuableClosed" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "issuable_slas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "issuable_slas_issueId_key" ON "issuable_slas"("issueId");

-- CreateIndex
CREATE INDEX "issuable_slas_dueAt_id_idx" ON "issuable_slas"("dueAt", "id");

-- AddForeignKey
ALTER TABLE "project_incident_management_settings" ADD CONSTRAINT "project_incident_management_settings_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issuable_slas" ADD CONSTRAINT "issuable_slas_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

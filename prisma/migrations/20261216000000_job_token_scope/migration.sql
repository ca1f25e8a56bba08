-- CreateTable
CREATE TABLE "project_ci_cd_settings" (
    "projectId" INTEGER NOT NULL,
    "inboundJobTokenScopeEnabled" BOOLEAN NOT NULL DEFAULT true,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "project_ci_cd_settings_pkey" PRIMARY KEY ("projectId")
);

-- CreateTable
CREATE TABLE "ci_job_token_project_scope_links" (
    "id" SERIAL NOT NULL,
    "sourceProjectId" INTEGER NOT NULL,
    "targetProjectId" INTEGER NOT NULL,
    "direction" TEXT NOT NULL DEFAULT 'inbound',
    "addedById" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ci_job_token_project_scope_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_job_token_group_scope_links" (
    "id" SERIAL NOT NULL,
    "sourceProjectId" INTEGER NOT NULL,
    "targetGroupId" INTEGER NOT NULL,
    "addedById" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ci_job_token_group_scope_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ci_job_token_project_scope_links_targetProjectId_idx" ON "ci_job_token_project_scope_links"("targetProjectId");

-- CreateIndex
CREATE UNIQUE INDEX "ci_job_token_project_scope_links_sourceProjectId_targetProj_key" ON "ci_job_token_project_scope_links"("sourceProjectId", "targetProjectId", "direction");

-- CreateIndex
CREATE INDEX "ci_job_token_group_scope_links_targetGroupId_idx" ON "ci_job_token_group_scope_links"("targetGroupId");

-- CreateIndex
CREATE UNIQUE INDEX "ci_job_token_group_scope_links_sourceProjectId_targetGroupI_key" ON "ci_job_token_group_scope_links"("sourceProjectId", "targetGroupId");

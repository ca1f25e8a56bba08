-- CreateTable
CREATE TABLE "project_features" (
    "projectId" INTEGER NOT NULL,
    "issuesAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "repositoryAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "mergeRequestsAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "forkingAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "wikiAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "buildsAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "snippetsAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "pagesAccessLevel" TEXT NOT NULL,
    "analyticsAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "containerRegistryAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "securityAndComplianceAccessLevel" TEXT NOT NULL DEFAULT 'private',
    "releasesAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "environmentsAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "featureFlagsAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "infrastructureAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "monitorAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "modelExperimentsAccessLevel" TEXT NOT NULL DEFAULT 'enabled',
    "modelRegistryAccessLevel" TEXT NOT NULL DEFAULT 'enabled',

    CONSTRAINT "project_features_pkey" PRIMARY KEY ("projectId")
);

-- AddForeignKey
ALTER TABLE "project_features" ADD CONSTRAINT "project_features_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Existing projects get GitLab's defaults (pages: enabled on public projects, private otherwise).
INSERT INTO "project_features" ("projectId", "pagesAccessLevel")
SELECT "id", CASE WHEN "visibility" = 'public' THEN 'enabled' ELSE 'private' END FROM "projects";

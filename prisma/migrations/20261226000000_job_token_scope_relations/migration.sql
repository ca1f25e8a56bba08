-- Rows a deleted project left behind (project deletion removed them by hand before these keys existed).
DELETE FROM "project_ci_cd_settings" s WHERE NOT EXISTS (SELECT 1 FROM "projects" p WHERE p."id" = s."projectId");
DELETE FROM "ci_job_token_project_scope_links" l WHERE NOT EXISTS (SELECT 1 FROM "projects" p WHERE p."id" = l."sourceProjectId");
DELETE FROM "ci_job_token_group_scope_links" l WHERE NOT EXISTS (SELECT 1 FROM "projects" p WHERE p."id" = l."sourceProjectId");

-- AddForeignKey
ALTER TABLE "project_ci_cd_settings" ADD CONSTRAINT "project_ci_cd_settings_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_job_token_project_scope_links" ADD CONSTRAINT "ci_job_token_project_scope_links_sourceProjectId_fkey" FOREIGN KEY ("sourceProjectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_job_token_group_scope_links" ADD CONSTRAINT "ci_job_token_group_scope_links_sourceProjectId_fkey" FOREIGN KEY ("sourceProjectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateIndex
CREATE INDEX "projects_createdAt_id_idx" ON "projects"("createdAt", "id");

-- CreateIndex
CREATE INDEX "web_hook_logs_createdAt_idx" ON "web_hook_logs"("createdAt");

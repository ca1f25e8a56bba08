-- Markdown uploads (GitLab's uploads table): project attachments, users' temporary uploads, personal snippets' files.
CREATE TABLE "uploads" (
    "id" SERIAL NOT NULL,
    "size" BIGINT NOT NULL,
    "path" TEXT NOT NULL,
    "checksum" TEXT NOT NULL,
    "modelType" TEXT NOT NULL,
    "modelId" INTEGER NOT NULL,
    "uploader" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "uploadedByUserId" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "uploads_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "uploads_modelType_modelId_path_key" ON "uploads"("modelType", "modelId", "path");
CREATE INDEX "uploads_modelType_modelId_createdAt_idx" ON "uploads"("modelType", "modelId", "createdAt");
CREATE INDEX "uploads_uploadedByUserId_idx" ON "uploads"("uploadedByUserId");

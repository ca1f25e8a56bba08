-- CreateTable
CREATE TABLE "ci_pipeline_messages" (
    "id" SERIAL NOT NULL,
    "pipelineId" INTEGER NOT NULL,
    "severity" TEXT NOT NULL DEFAULT 'warning',
    "content" TEXT NOT NULL,

    CONSTRAINT "ci_pipeline_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ci_pipeline_messages_pipelineId_id_idx" ON "ci_pipeline_messages"("pipelineId", "id");

-- AddForeignKey
ALTER TABLE "ci_pipeline_messages" ADD CONSTRAINT "ci_pipeline_messages_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "ci_pipelines"("id") ON DELETE CASCADE ON UPDATE CASCADE;

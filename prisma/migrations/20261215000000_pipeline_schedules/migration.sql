-- AlterTable
ALTER TABLE "ci_pipelines" ADD COLUMN     "pipelineScheduleId" INTEGER;

-- CreateTable
CREATE TABLE "ci_pipeline_schedules" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "ownerId" INTEGER,
    "description" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "cronTimezone" TEXT NOT NULL,
    "nextRunAt" TIMESTAMPTZ(3),
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ci_pipeline_schedules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_pipeline_schedule_variables" (
    "id" SERIAL NOT NULL,
    "pipelineScheduleId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "variableType" TEXT NOT NULL DEFAULT 'env_var',
    "raw" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ci_pipeline_schedule_variables_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ci_pipeline_schedules_projectId_id_idx" ON "ci_pipeline_schedules"("projectId", "id");

-- CreateIndex
CREATE INDEX "ci_pipeline_schedules_active_nextRunAt_idx" ON "ci_pipeline_schedules"("active", "nextRunAt");

-- CreateIndex
CREATE UNIQUE INDEX "ci_pipeline_schedule_variables_pipelineScheduleId_key_key" ON "ci_pipeline_schedule_variables"("pipelineScheduleId", "key");

-- CreateIndex
CREATE INDEX "ci_pipelines_pipelineScheduleId_id_idx" ON "ci_pipelines"("pipelineScheduleId", "id");

-- AddForeignKey
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_pipelineScheduleId_fkey" FOREIGN KEY ("pipelineScheduleId") REFERENCES "ci_pipeline_schedules"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_pipeline_schedules" ADD CONSTRAINT "ci_pipeline_schedules_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_pipeline_schedules" ADD CONSTRAINT "ci_pipeline_schedules_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_pipeline_schedule_variables" ADD CONSTRAINT "ci_pipeline_schedule_variables_pipelineScheduleId_fkey" FOREIGN KEY ("pipelineScheduleId") REFERENCES "ci_pipeline_schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "ci_stages" (
    "id" SERIAL NOT NULL,
    "pipelineId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ci_stages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_job_variables" (
    "id" SERIAL NOT NULL,
    "jobId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "variableType" TEXT NOT NULL DEFAULT 'env_var',
    "raw" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "ci_job_variables_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ci_stages_pipelineId_position_key" ON "ci_stages"("pipelineId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "ci_job_variables_jobId_key_key" ON "ci_job_variables"("jobId", "key");

-- AddForeignKey
ALTER TABLE "ci_stages" ADD CONSTRAINT "ci_stages_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "ci_pipelines"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_job_variables" ADD CONSTRAINT "ci_job_variables_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "ci_builds"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: one stage a pipeline's jobs name, in position order
INSERT INTO "ci_stages" ("pipelineId", "name", "position")
SELECT DISTINCT ON ("pipelineId", "stageIdx") "pipelineId", "stage", "stageIdx"
FROM "ci_builds" ORDER BY "pipelineId", "stageIdx", "id";

-- Backfill: the variables manual jobs were played with, kept until now in their options
INSERT INTO "ci_job_variables" ("jobId", "key", "value")
SELECT DISTINCT ON (b."id", v->>'key') b."id", v->>'key', COALESCE(v->>'value', '')
FROM "ci_builds" b, jsonb_array_elements(b."options"->'job_variables') v
WHERE jsonb_typeof(b."options"->'job_variables') = 'array' AND v->>'key' IS NOT NULL
ORDER BY b."id", v->>'key';

UPDATE "ci_builds" SET "options" = "options" - 'job_variables' WHERE jsonb_typeof("options"->'job_variables') = 'array';

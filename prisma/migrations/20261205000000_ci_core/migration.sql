-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "ciConfigPath" TEXT;

-- CreateTable
CREATE TABLE "ci_pipelines" (
    "id" SERIAL NOT NULL,
    "iid" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "ref" TEXT NOT NULL,
    "tag" BOOLEAN NOT NULL DEFAULT false,
    "sha" TEXT NOT NULL,
    "beforeSha" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'created',
    "name" TEXT,
    "yamlErrors" TEXT,
    "failureReason" TEXT,
    "userId" INTEGER,
    "parentPipelineId" INTEGER,
    "triggerId" INTEGER,
    "committedAt" TIMESTAMPTZ(3),
    "startedAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "duration" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ci_pipelines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_pipeline_variables" (
    "id" SERIAL NOT NULL,
    "pipelineId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "variableType" TEXT NOT NULL DEFAULT 'env_var',
    "raw" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "ci_pipeline_variables_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_builds" (
    "id" SERIAL NOT NULL,
    "pipelineId" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'build',
    "name" TEXT NOT NULL,
    "stage" TEXT NOT NULL,
    "stageIdx" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'created',
    "when" TEXT NOT NULL DEFAULT 'on_success',
    "allowFailure" BOOLEAN NOT NULL DEFAULT false,
    "schedulingType" TEXT NOT NULL DEFAULT 'stages',
    "options" JSONB NOT NULL DEFAULT '{}',
    "yamlVariables" JSONB NOT NULL DEFAULT '[]',
    "tagList" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "ref" TEXT NOT NULL,
    "tag" BOOLEAN NOT NULL DEFAULT false,
    "sha" TEXT NOT NULL,
    "retried" BOOLEAN NOT NULL DEFAULT false,
    "retryCount" INTEGER NOT NULL DEFAULT 0,
    "userId" INTEGER,
    "runnerId" INTEGER,
    "tokenDigest" TEXT,
    "coverage" DOUBLE PRECISION,
    "exitCode" INTEGER,
    "failureReason" TEXT,
    "description" TEXT,
    "targetUrl" TEXT,
    "traceSize" INTEGER NOT NULL DEFAULT 0,
    "traceChecksum" TEXT,
    "timeout" INTEGER,
    "scheduledAt" TIMESTAMPTZ(3),
    "queuedAt" TIMESTAMPTZ(3),
    "startedAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "heartbeatAt" TIMESTAMPTZ(3),
    "erasedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ci_builds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_build_trace_chunks" (
    "id" SERIAL NOT NULL,
    "jobId" INTEGER NOT NULL,
    "offset" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ci_build_trace_chunks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_job_artifacts" (
    "id" SERIAL NOT NULL,
    "jobId" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "fileType" TEXT NOT NULL,
    "fileFormat" TEXT NOT NULL,
    "fileName" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "fileSha256" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "report" JSONB,
    "expireAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ci_job_artifacts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_runners" (
    "id" SERIAL NOT NULL,
    "tokenDigest" TEXT NOT NULL,
    "tokenPrefix" TEXT NOT NULL,
    "runnerType" TEXT NOT NULL,
    "namespaceId" INTEGER,
    "description" TEXT NOT NULL DEFAULT '',
    "maintenanceNote" TEXT,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "locked" BOOLEAN NOT NULL DEFAULT true,
    "runUntagged" BOOLEAN NOT NULL DEFAULT true,
    "tagList" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "accessLevel" TEXT NOT NULL DEFAULT 'not_protected',
    "maximumTimeout" INTEGER,
    "creatorId" INTEGER,
    "version" TEXT,
    "revision" TEXT,
    "platform" TEXT,
    "architecture" TEXT,
    "ipAddress" TEXT,
    "contactedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ci_runners_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_runner_projects" (
    "id" SERIAL NOT NULL,
    "runnerId" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ci_runner_projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_variables" (
    "id" SERIAL NOT NULL,
    "scope" TEXT NOT NULL,
    "namespaceId" INTEGER,
    "projectId" INTEGER,
    "ownerKey" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "variableType" TEXT NOT NULL DEFAULT 'env_var',
    "protected" BOOLEAN NOT NULL DEFAULT false,
    "masked" BOOLEAN NOT NULL DEFAULT false,
    "hidden" BOOLEAN NOT NULL DEFAULT false,
    "raw" BOOLEAN NOT NULL DEFAULT false,
    "environmentScope" TEXT NOT NULL DEFAULT '*',
    "description" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ci_variables_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_triggers" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "ownerId" INTEGER,
    "description" TEXT,
    "token" TEXT NOT NULL,
    "lastUsedAt" TIMESTAMPTZ(3),
    "expiresAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ci_triggers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ci_pipelines_projectId_id_idx" ON "ci_pipelines"("projectId", "id");

-- CreateIndex
CREATE INDEX "ci_pipelines_projectId_ref_id_idx" ON "ci_pipelines"("projectId", "ref", "id");

-- CreateIndex
CREATE INDEX "ci_pipelines_projectId_sha_idx" ON "ci_pipelines"("projectId", "sha");

-- CreateIndex
CREATE INDEX "ci_pipelines_parentPipelineId_idx" ON "ci_pipelines"("parentPipelineId");

-- CreateIndex
CREATE UNIQUE INDEX "ci_pipelines_projectId_iid_key" ON "ci_pipelines"("projectId", "iid");

-- CreateIndex
CREATE UNIQUE INDEX "ci_pipeline_variables_pipelineId_key_key" ON "ci_pipeline_variables"("pipelineId", "key");

-- CreateIndex
CREATE UNIQUE INDEX "ci_builds_tokenDigest_key" ON "ci_builds"("tokenDigest");

-- CreateIndex
CREATE INDEX "ci_builds_pipelineId_stageIdx_idx" ON "ci_builds"("pipelineId", "stageIdx");

-- CreateIndex
CREATE INDEX "ci_builds_projectId_id_idx" ON "ci_builds"("projectId", "id");

-- CreateIndex
CREATE INDEX "ci_builds_status_id_idx" ON "ci_builds"("status", "id");

-- CreateIndex
CREATE INDEX "ci_builds_runnerId_status_idx" ON "ci_builds"("runnerId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "ci_build_trace_chunks_jobId_offset_key" ON "ci_build_trace_chunks"("jobId", "offset");

-- CreateIndex
CREATE INDEX "ci_job_artifacts_projectId_idx" ON "ci_job_artifacts"("projectId");

-- CreateIndex
CREATE UNIQUE INDEX "ci_job_artifacts_jobId_fileType_key" ON "ci_job_artifacts"("jobId", "fileType");

-- CreateIndex
CREATE UNIQUE INDEX "ci_runners_tokenDigest_key" ON "ci_runners"("tokenDigest");

-- CreateIndex
CREATE INDEX "ci_runners_runnerType_idx" ON "ci_runners"("runnerType");

-- CreateIndex
CREATE INDEX "ci_runners_namespaceId_idx" ON "ci_runners"("namespaceId");

-- CreateIndex
CREATE INDEX "ci_runner_projects_projectId_idx" ON "ci_runner_projects"("projectId");

-- CreateIndex
CREATE UNIQUE INDEX "ci_runner_projects_runnerId_projectId_key" ON "ci_runner_projects"("runnerId", "projectId");

-- CreateIndex
CREATE INDEX "ci_variables_projectId_idx" ON "ci_variables"("projectId");

-- CreateIndex
CREATE INDEX "ci_variables_namespaceId_idx" ON "ci_variables"("namespaceId");

-- CreateIndex
CREATE UNIQUE INDEX "ci_variables_ownerKey_key_environmentScope_key" ON "ci_variables"("ownerKey", "key", "environmentScope");

-- CreateIndex
CREATE UNIQUE INDEX "ci_triggers_token_key" ON "ci_triggers"("token");

-- CreateIndex
CREATE INDEX "ci_triggers_projectId_idx" ON "ci_triggers"("projectId");

-- AddForeignKey
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_pipelines" ADD CONSTRAINT "ci_pipelines_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_pipeline_variables" ADD CONSTRAINT "ci_pipeline_variables_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "ci_pipelines"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_builds" ADD CONSTRAINT "ci_builds_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "ci_pipelines"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_builds" ADD CONSTRAINT "ci_builds_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_builds" ADD CONSTRAINT "ci_builds_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_builds" ADD CONSTRAINT "ci_builds_runnerId_fkey" FOREIGN KEY ("runnerId") REFERENCES "ci_runners"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_build_trace_chunks" ADD CONSTRAINT "ci_build_trace_chunks_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "ci_builds"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_job_artifacts" ADD CONSTRAINT "ci_job_artifacts_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "ci_builds"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_runner_projects" ADD CONSTRAINT "ci_runner_projects_runnerId_fkey" FOREIGN KEY ("runnerId") REFERENCES "ci_runners"("id") ON DELETE CASCADE ON UPDATE CASCADE;

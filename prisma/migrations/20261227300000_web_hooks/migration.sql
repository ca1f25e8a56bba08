-- CreateTable
CREATE TABLE "web_hooks" (
    "id" SERIAL NOT NULL,
    "type" TEXT NOT NULL,
    "projectId" INTEGER,
    "url" TEXT NOT NULL,
    "name" TEXT,
    "description" TEXT,
    "token" TEXT,
    "pushEvents" BOOLEAN NOT NULL DEFAULT true,
    "tagPushEvents" BOOLEAN NOT NULL DEFAULT false,
    "mergeRequestsEvents" BOOLEAN NOT NULL DEFAULT false,
    "repositoryUpdateEvents" BOOLEAN NOT NULL DEFAULT false,
    "issuesEvents" BOOLEAN NOT NULL DEFAULT false,
    "confidentialIssuesEvents" BOOLEAN NOT NULL DEFAULT false,
    "noteEvents" BOOLEAN NOT NULL DEFAULT false,
    "confidentialNoteEvents" BOOLEAN NOT NULL DEFAULT false,
    "jobEvents" BOOLEAN NOT NULL DEFAULT false,
    "pipelineEvents" BOOLEAN NOT NULL DEFAULT false,
    "wikiPageEvents" BOOLEAN NOT NULL DEFAULT false,
    "deploymentEvents" BOOLEAN NOT NULL DEFAULT false,
    "releasesEvents" BOOLEAN NOT NULL DEFAULT false,
    "enableSslVerification" BOOLEAN NOT NULL DEFAULT true,
    "pushEventsBranchFilter" TEXT,
    "branchFilterStrategy" TEXT NOT NULL DEFAULT 'wildcard',
    "urlVariables" JSONB NOT NULL DEFAULT '{}',
    "recentFailures" INTEGER NOT NULL DEFAULT 0,
    "backoffCount" INTEGER NOT NULL DEFAULT 0,
    "disabledUntil" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "web_hooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "web_hook_logs" (
    "id" SERIAL NOT NULL,
    "webHookId" INTEGER NOT NULL,
    "trigger" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "requestHeaders" JSONB NOT NULL,
    "requestData" JSONB NOT NULL,
    "responseHeaders" JSONB NOT NULL,
    "responseBody" TEXT NOT NULL,
    "responseStatus" TEXT NOT NULL,
    "executionDuration" DOUBLE PRECISION NOT NULL,
    "internalErrorMessage" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "web_hook_logs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "web_hooks_type_projectId_id_idx" ON "web_hooks"("type", "projectId", "id");

-- CreateIndex
CREATE INDEX "web_hook_logs_webHookId_id_idx" ON "web_hook_logs"("webHookId", "id");

-- AddForeignKey
ALTER TABLE "web_hooks" ADD CONSTRAINT "web_hooks_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "web_hook_logs" ADD CONSTRAINT "web_hook_logs_webHookId_fkey" FOREIGN KEY ("webHookId") REFERENCES "web_hooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

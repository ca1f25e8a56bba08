-- CreateTable
CREATE TABLE "environments" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "externalUrl" TEXT,
    "description" TEXT,
    "state" TEXT NOT NULL DEFAULT 'available',
    "tier" TEXT NOT NULL,
    "autoStopAt" TIMESTAMPTZ(3),
    "autoStopSetting" TEXT NOT NULL DEFAULT 'always',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "environments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deployments" (
    "id" SERIAL NOT NULL,
    "iid" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "environmentId" INTEGER NOT NULL,
    "ref" TEXT NOT NULL,
    "tag" BOOLEAN NOT NULL DEFAULT false,
    "sha" TEXT NOT NULL,
    "userId" INTEGER,
    "jobId" INTEGER,
    "onStop" TEXT,
    "status" TEXT NOT NULL DEFAULT 'created',
    "finishedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "deployments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "environments_state_autoStopAt_idx" ON "environments"("state", "autoStopAt");

-- CreateIndex
CREATE UNIQUE INDEX "environments_projectId_name_key" ON "environments"("projectId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "deployments_jobId_key" ON "deployments"("jobId");

-- CreateIndex
CREATE INDEX "deployments_environmentId_id_idx" ON "deployments"("environmentId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "deployments_projectId_iid_key" ON "deployments"("projectId", "iid");

-- AddForeignKey
ALTER TABLE "environments" ADD CONSTRAINT "environments_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "environments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "ci_builds"("id") ON DELETE SET NULL ON UPDATE CASCADE;

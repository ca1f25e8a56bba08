-- AlterTable
ALTER TABLE "ci_runners" ADD COLUMN     "privateProjectsMinutesCostFactor" DOUBLE PRECISION NOT NULL DEFAULT 1.0,
ADD COLUMN     "publicProjectsMinutesCostFactor" DOUBLE PRECISION NOT NULL DEFAULT 1.0;

-- CreateTable
CREATE TABLE "ci_namespace_monthly_usages" (
    "id" SERIAL NOT NULL,
    "namespaceId" INTEGER NOT NULL,
    "date" DATE NOT NULL,
    "amountUsed" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "sharedRunnersDuration" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ci_namespace_monthly_usages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_project_monthly_usages" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "date" DATE NOT NULL,
    "amountUsed" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "sharedRunnersDuration" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ci_project_monthly_usages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ci_build_minutes_consumptions" (
    "id" SERIAL NOT NULL,
    "jobId" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "namespaceId" INTEGER NOT NULL,
    "date" DATE NOT NULL,
    "amountUsed" DECIMAL(18,2) NOT NULL,
    "duration" INTEGER NOT NULL,
    "costFactor" DOUBLE PRECISION NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ci_build_minutes_consumptions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ci_namespace_monthly_usages_namespaceId_date_key" ON "ci_namespace_monthly_usages"("namespaceId", "date");

-- CreateIndex
CREATE UNIQUE INDEX "ci_project_monthly_usages_projectId_date_key" ON "ci_project_monthly_usages"("projectId", "date");

-- CreateIndex
CREATE UNIQUE INDEX "ci_build_minutes_consumptions_jobId_key" ON "ci_build_minutes_consumptions"("jobId");

-- CreateIndex
CREATE INDEX "ci_build_minutes_consumptions_projectId_idx" ON "ci_build_minutes_consumptions"("projectId");

-- AddForeignKey
ALTER TABLE "ci_namespace_monthly_usages" ADD CONSTRAINT "ci_namespace_monthly_usages_namespaceId_fkey" FOREIGN KEY ("namespaceId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_project_monthly_usages" ADD CONSTRAINT "ci_project_monthly_usages_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_build_minutes_consumptions" ADD CONSTRAINT "ci_build_minutes_consumptions_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

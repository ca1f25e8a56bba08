-- AlterTable
ALTER TABLE "issues" ADD COLUMN     "sprintId" INTEGER;

-- CreateTable
CREATE TABLE "iterations_cadences" (
    "id" SERIAL NOT NULL,
    "groupId" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "automatic" BOOLEAN NOT NULL DEFAULT true,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "startDate" DATE,
    "durationInWeeks" INTEGER,
    "iterationsInAdvance" INTEGER,
    "rollOver" BOOLEAN NOT NULL DEFAULT false,
    "nextRunDate" DATE,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "iterations_cadences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sprints" (
    "id" SERIAL NOT NULL,
    "iid" INTEGER NOT NULL,
    "groupId" INTEGER NOT NULL,
    "iterationsCadenceId" INTEGER NOT NULL,
    "title" TEXT,
    "description" TEXT,
    "startDate" DATE NOT NULL,
    "dueDate" DATE NOT NULL,
    "sequence" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sprints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "resource_iteration_events" (
    "id" SERIAL NOT NULL,
    "issueId" INTEGER NOT NULL,
    "iterationId" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "userId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "resource_iteration_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "iterations_cadences_groupId_idx" ON "iterations_cadences"("groupId");

-- CreateIndex
CREATE INDEX "iterations_cadences_automatic_nextRunDate_idx" ON "iterations_cadences"("automatic", "nextRunDate");

-- CreateIndex
CREATE INDEX "sprints_iterationsCadenceId_startDate_idx" ON "sprints"("iterationsCadenceId", "startDate");

-- CreateIndex
CREATE UNIQUE INDEX "sprints_groupId_iid_key" ON "sprints"("groupId", "iid");

-- CreateIndex
CREATE INDEX "resource_iteration_events_issueId_id_idx" ON "resource_iteration_events"("issueId", "id");

-- CreateIndex
CREATE INDEX "resource_iteration_events_iterationId_idx" ON "resource_iteration_events"("iterationId");

-- CreateIndex
CREATE INDEX "resource_iteration_events_userId_idx" ON "resource_iteration_events"("userId");

-- CreateIndex
CREATE INDEX "issues_sprintId_idx" ON "issues"("sprintId");

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_sprintId_fkey" FOREIGN KEY ("sprintId") REFERENCES "sprints"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "iterations_cadences" ADD CONSTRAINT "iterations_cadences_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sprints" ADD CONSTRAINT "sprints_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sprints" ADD CONSTRAINT "sprints_iterationsCadenceId_fkey" FOREIGN KEY ("iterationsCadenceId") REFERENCES "iterations_cadences"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_iteration_events" ADD CONSTRAINT "resource_iteration_events_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_iteration_events" ADD CONSTRAINT "resource_iteration_events_iterationId_fkey" FOREIGN KEY ("iterationId") REFERENCES "sprints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_iteration_events" ADD CONSTRAINT "resource_iteration_events_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

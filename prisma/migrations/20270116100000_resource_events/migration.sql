-- CreateTable
CREATE TABLE "resource_label_events" (
    "id" SERIAL NOT NULL,
    "resourceType" TEXT NOT NULL,
    "resourceId" INTEGER NOT NULL,
    "projectId" INTEGER,
    "groupId" INTEGER,
    "labelId" INTEGER,
    "action" TEXT NOT NULL,
    "userId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "resource_label_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "resource_weight_events" (
    "id" SERIAL NOT NULL,
    "issueId" INTEGER NOT NULL,
    "weight" INTEGER,
    "userId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "resource_weight_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "resource_milestone_events" (
    "id" SERIAL NOT NULL,
    "resourceType" TEXT NOT NULL,
    "resourceId" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "milestoneId" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "userId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "resource_milestone_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "resource_state_events" (
    "id" SERIAL NOT NULL,
    "resourceType" TEXT NOT NULL,
    "resourceId" INTEGER NOT NULL,
    "projectId" INTEGER,
    "groupId" INTEGER,
    "state" TEXT NOT NULL,
    "sourceCommit" TEXT,
    "sourceMergeRequestId" INTEGER,
    "userId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "resource_state_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "resource_label_events_resourceType_resourceId_id_idx" ON "resource_label_events"("resourceType", "resourceId", "id");

-- CreateIndex
CREATE INDEX "resource_label_events_projectId_idx" ON "resource_label_events"("projectId");

-- CreateIndex
CREATE INDEX "resource_label_events_groupId_idx" ON "resource_label_events"("groupId");

-- CreateIndex
CREATE INDEX "resource_label_events_labelId_idx" ON "resource_label_events"("labelId");

-- CreateIndex
CREATE INDEX "resource_label_events_userId_idx" ON "resource_label_events"("userId");

-- CreateIndex
CREATE INDEX "resource_weight_events_issueId_id_idx" ON "resource_weight_events"("issueId", "id");

-- CreateIndex
CREATE INDEX "resource_weight_events_userId_idx" ON "resource_weight_events"("userId");

-- CreateIndex
CREATE INDEX "resource_milestone_events_resourceType_resourceId_id_idx" ON "resource_milestone_events"("resourceType", "resourceId", "id");

-- CreateIndex
CREATE INDEX "resource_milestone_events_projectId_idx" ON "resource_milestone_events"("projectId");

-- CreateIndex
CREATE INDEX "resource_milestone_events_milestoneId_idx" ON "resource_milestone_events"("milestoneId");

-- CreateIndex
CREATE INDEX "resource_milestone_events_userId_idx" ON "resource_milestone_events"("userId");

-- CreateIndex
CREATE INDEX "resource_state_events_resourceType_resourceId_id_idx" ON "resource_state_events"("resourceType", "resourceId", "id");

-- CreateIndex
CREATE INDEX "resource_state_events_projectId_idx" ON "resource_state_events"("projectId");

-- CreateIndex
CREATE INDEX "resource_state_events_groupId_idx" ON "resource_state_events"("groupId");

-- CreateIndex
CREATE INDEX "resource_state_events_userId_idx" ON "resource_state_events"("userId");

-- AddForeignKey
ALTER TABLE "resource_label_events" ADD CONSTRAINT "resource_label_events_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_label_events" ADD CONSTRAINT "resource_label_events_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_label_events" ADD CONSTRAINT "resource_label_events_labelId_fkey" FOREIGN KEY ("labelId") REFERENCES "labels"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_label_events" ADD CONSTRAINT "resource_label_events_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_weight_events" ADD CONSTRAINT "resource_weight_events_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_weight_events" ADD CONSTRAINT "resource_weight_events_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_milestone_events" ADD CONSTRAINT "resource_milestone_events_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_milestone_events" ADD CONSTRAINT "resource_milestone_events_milestoneId_fkey" FOREIGN KEY ("milestoneId") REFERENCES "milestones"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_milestone_events" ADD CONSTRAINT "resource_milestone_events_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_state_events" ADD CONSTRAINT "resource_state_events_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_state_events" ADD CONSTRAINT "resource_state_events_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "resource_state_events" ADD CONSTRAINT "resource_state_events_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

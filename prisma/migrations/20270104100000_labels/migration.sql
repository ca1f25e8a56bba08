-- CreateTable
CREATE TABLE "labels" (
    "id" SERIAL NOT NULL,
    "title" TEXT NOT NULL,
    "color" TEXT NOT NULL,
    "description" TEXT,
    "projectId" INTEGER,
    "groupId" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "labels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "label_priorities" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "labelId" INTEGER NOT NULL,
    "priority" INTEGER NOT NULL,

    CONSTRAINT "label_priorities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "label_subscriptions" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "labelId" INTEGER NOT NULL,
    "projectId" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "label_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "milestones" (
    "id" SERIAL NOT NULL,
    "iid" INTEGER NOT NULL,
    "projectId" INTEGER,
    "groupId" INTEGER,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "state" TEXT NOT NULL DEFAULT 'active',
    "startDate" DATE,
    "dueDate" DATE,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "milestones_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "labels_projectId_title_key" ON "labels"("projectId", "title");

-- CreateIndex
CREATE UNIQUE INDEX "labels_groupId_title_key" ON "labels"("groupId", "title");

-- CreateIndex
CREATE INDEX "label_priorities_labelId_idx" ON "label_priorities"("labelId");

-- CreateIndex
CREATE UNIQUE INDEX "label_priorities_projectId_labelId_key" ON "label_priorities"("projectId", "labelId");

-- CreateIndex
CREATE INDEX "label_subscriptions_labelId_idx" ON "label_subscriptions"("labelId");

-- CreateIndex
CREATE UNIQUE INDEX "label_subscriptions_userId_labelId_projectId_key" ON "label_subscriptions"("userId", "labelId", "projectId");

-- CreateIndex
CREATE INDEX "milestones_projectId_title_idx" ON "milestones"("projectId", "title");

-- CreateIndex
CREATE INDEX "milestones_groupId_title_idx" ON "milestones"("groupId", "title");

-- CreateIndex
CREATE UNIQUE INDEX "milestones_projectId_iid_key" ON "milestones"("projectId", "iid");

-- CreateIndex
CREATE UNIQUE INDEX "milestones_groupId_iid_key" ON "milestones"("groupId", "iid");

-- AddForeignKey
ALTER TABLE "labels" ADD CONSTRAINT "labels_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "labels" ADD CONSTRAINT "labels_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "label_priorities" ADD CONSTRAINT "label_priorities_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "label_priorities" ADD CONSTRAINT "label_priorities_labelId_fkey" FOREIGN KEY ("labelId") REFERENCES "labels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "label_subscriptions" ADD CONSTRAINT "label_subscriptions_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "label_subscriptions" ADD CONSTRAINT "label_subscriptions_labelId_fkey" FOREIGN KEY ("labelId") REFERENCES "labels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "milestones" ADD CONSTRAINT "milestones_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "milestones" ADD CONSTRAINT "milestones_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

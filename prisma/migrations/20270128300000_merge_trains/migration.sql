-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "mergeTrainsEnabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "mergeTrainsSkipTrainAllowed" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "merge_train_cars" (
    "id" SERIAL NOT NULL,
    "mergeRequestId" INTEGER NOT NULL,
    "userId" INTEGER,
    "pipelineId" INTEGER,
    "targetProjectId" INTEGER NOT NULL,
    "targetBranch" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'idle',
    "mergedAt" TIMESTAMPTZ(3),
    "duration" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merge_train_cars_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "merge_train_leases" (
    "targetProjectId" INTEGER NOT NULL,
    "targetBranch" TEXT NOT NULL,
    "lockedUntil" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merge_train_leases_pkey" PRIMARY KEY ("targetProjectId","targetBranch")
);

-- CreateIndex
CREATE UNIQUE INDEX "merge_train_cars_mergeRequestId_key" ON "merge_train_cars"("mergeRequestId");

-- CreateIndex
CREATE INDEX "merge_train_cars_targetProjectId_targetBranch_status_id_idx" ON "merge_train_cars"("targetProjectId", "targetBranch", "status", "id");

-- CreateIndex
CREATE INDEX "merge_train_cars_pipelineId_idx" ON "merge_train_cars"("pipelineId");

-- AddForeignKey
ALTER TABLE "merge_train_cars" ADD CONSTRAINT "merge_train_cars_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merge_train_cars" ADD CONSTRAINT "merge_train_cars_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merge_train_cars" ADD CONSTRAINT "merge_train_cars_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "ci_pipelines"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merge_train_cars" ADD CONSTRAINT "merge_train_cars_targetProjectId_fkey" FOREIGN KEY ("targetProjectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "merge_request_diffs" (
    "id" SERIAL NOT NULL,
    "mergeRequestId" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "headCommitSha" TEXT,
    "baseCommitSha" TEXT,
    "startCommitSha" TEXT,
    "realSize" TEXT,
    "patchIdSha" TEXT,
    "commitsCount" INTEGER NOT NULL DEFAULT 0,
    "filesCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merge_request_diffs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "merge_request_diffs_mergeRequestId_id_idx" ON "merge_request_diffs"("mergeRequestId", "id");

-- AddForeignKey
ALTER TABLE "merge_request_diffs" ADD CONSTRAINT "merge_request_diffs_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "merge_request_approvals" (
    "mergeRequestId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merge_request_approvals_pkey" PRIMARY KEY ("mergeRequestId","userId")
);

-- CreateIndex
CREATE INDEX "merge_request_approvals_userId_idx" ON "merge_request_approvals"("userId");

-- AddForeignKey
ALTER TABLE "merge_request_approvals" ADD CONSTRAINT "merge_request_approvals_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

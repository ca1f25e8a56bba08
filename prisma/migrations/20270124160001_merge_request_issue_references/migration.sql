-- CreateTable
CREATE TABLE "merge_request_issue_references" (
    "id" SERIAL NOT NULL,
    "mergeRequestId" INTEGER NOT NULL,
    "issueId" INTEGER NOT NULL,
    "closes" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merge_request_issue_references_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "merge_request_issue_references_issueId_idx" ON "merge_request_issue_references"("issueId");

-- CreateIndex
CREATE UNIQUE INDEX "merge_request_issue_references_mergeRequestId_issueId_key" ON "merge_request_issue_references"("mergeRequestId", "issueId");

-- AddForeignKey
ALTER TABLE "merge_request_issue_references" ADD CONSTRAINT "merge_request_issue_references_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merge_request_issue_references" ADD CONSTRAINT "merge_request_issue_references_issueId_fkey" FOREIGN KEY ("issueId") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

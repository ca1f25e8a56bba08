-- To-do items about merge requests (review requested): the merge request they are about, gone with it.
ALTER TABLE "todos" ADD COLUMN "mergeRequestId" INTEGER;

CREATE INDEX "todos_mergeRequestId_idx" ON "todos"("mergeRequestId");

ALTER TABLE "todos" ADD CONSTRAINT "todos_mergeRequestId_fkey" FOREIGN KEY ("mergeRequestId") REFERENCES "merge_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;

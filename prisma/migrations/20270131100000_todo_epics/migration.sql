-- To-do items about epics (GitLab's Todo with target_type Epic): the epic they are about, gone with it.
ALTER TABLE "todos" ADD COLUMN "epicId" INTEGER;

CREATE INDEX "todos_epicId_idx" ON "todos"("epicId");

ALTER TABLE "todos" ADD CONSTRAINT "todos_epicId_fkey" FOREIGN KEY ("epicId") REFERENCES "epics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

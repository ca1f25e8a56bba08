-- CreateTable
CREATE TABLE "note_counts" (
    "key" TEXT NOT NULL,
    "notes" INTEGER NOT NULL DEFAULT 0,
    "threads" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "note_counts_pkey" PRIMARY KEY ("key")
);

-- The key of a note's noteable, as the server computes it (NotesService's countKey).
CREATE FUNCTION note_count_key(noteable_type TEXT, noteable_id INTEGER, project_id INTEGER, commit_id TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
  SELECT noteable_type || ':' || coalesce(noteable_id::text, project_id::text || '@' || commit_id)
$$;

-- Each note counts once for its noteable, and once more as a thread while it starts one. A changed row leaves its old
-- count and joins its new one.
CREATE FUNCTION note_counts_follow() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE note_counts SET notes = notes - 1, threads = threads - OLD."startsDiscussion"::int
    WHERE key = note_count_key(OLD."noteableType", OLD."noteableId", OLD."projectId", OLD."commitId");
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO note_counts AS c (key, notes, threads)
    VALUES (note_count_key(NEW."noteableType", NEW."noteableId", NEW."projectId", NEW."commitId"), 1, NEW."startsDiscussion"::int)
    ON CONFLICT (key) DO UPDATE SET notes = c.notes + 1, threads = c.threads + EXCLUDED.threads;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER notes_counted AFTER INSERT OR DELETE OR UPDATE OF "startsDiscussion", "noteableType", "noteableId", "projectId", "commitId" ON "notes"
FOR EACH ROW EXECUTE FUNCTION note_counts_follow();

-- The notes there are already.
INSERT INTO note_counts (key, notes, threads)
SELECT note_count_key("noteableType", "noteableId", "projectId", "commitId"), count(*), count(*) FILTER (WHERE "startsDiscussion")
FROM notes GROUP BY 1;

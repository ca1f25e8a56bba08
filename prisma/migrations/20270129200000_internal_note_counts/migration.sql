-- Internal notes counted apart, so a list's total for one who may not read them leaves them out at no cost.
ALTER TABLE "note_counts" ADD COLUMN "internalNotes" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "internalThreads" INTEGER NOT NULL DEFAULT 0;

-- As before, each note counts once for its noteable and once more as a thread while it starts one, and an internal
-- note counts again in the internal columns. A changed row leaves its old counts and joins its new ones.
CREATE OR REPLACE FUNCTION note_counts_follow() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE note_counts SET notes = notes - 1, threads = threads - OLD."startsDiscussion"::int,
      "internalNotes" = "internalNotes" - OLD.internal::int,
      "internalThreads" = "internalThreads" - (OLD.internal AND OLD."startsDiscussion")::int
    WHERE key = note_count_key(OLD."noteableType", OLD."noteableId", OLD."projectId", OLD."commitId");
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO note_counts AS c (key, notes, threads, "internalNotes", "internalThreads")
    VALUES (note_count_key(NEW."noteableType", NEW."noteableId", NEW."projectId", NEW."commitId"), 1, NEW."startsDiscussion"::int,
      NEW.internal::int, (NEW.internal AND NEW."startsDiscussion")::int)
    ON CONFLICT (key) DO UPDATE SET notes = c.notes + 1, threads = c.threads + EXCLUDED.threads,
      "internalNotes" = c."internalNotes" + EXCLUDED."internalNotes", "internalThreads" = c."internalThreads" + EXCLUDED."internalThreads";
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER notes_counted ON "notes";
CREATE TRIGGER notes_counted AFTER INSERT OR DELETE OR UPDATE OF "startsDiscussion", "noteableType", "noteableId", "projectId", "commitId", "internal" ON "notes"
FOR EACH ROW EXECUTE FUNCTION note_counts_follow();

-- The internal notes there are already.
UPDATE note_counts AS c SET "internalNotes" = i.notes, "internalThreads" = i.threads
FROM (
  SELECT note_count_key("noteableType", "noteableId", "projectId", "commitId") AS key, count(*) AS notes,
    count(*) FILTER (WHERE "startsDiscussion") AS threads
  FROM notes WHERE internal GROUP BY 1
) AS i
WHERE c.key = i.key;

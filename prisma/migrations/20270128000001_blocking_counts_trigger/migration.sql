-- An issue's blockingIssuesCount (EE's blocking_issues_count: the open issues it blocks) kept by the database, so
-- every path that changes it counts: links made, removed or moved, target issues closed, reopened or deleted, and
-- the cascades of project and user deletion, which no service call sees.
CREATE FUNCTION issue_blocking_recount(source_id INTEGER) RETURNS void
LANGUAGE sql AS $$
  UPDATE issues SET "blockingIssuesCount" = (
    SELECT count(*)::int FROM issue_links AS l JOIN issues AS t ON t."id" = l."targetId"
    WHERE l."sourceId" = source_id AND l."linkType" = 'blocks' AND t."state" = 'opened'
  ) WHERE "id" = source_id
$$;

CREATE FUNCTION issue_links_blocking_follow() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD."linkType" = 'blocks' THEN
    PERFORM issue_blocking_recount(OLD."sourceId");
  END IF;
  IF TG_OP <> 'DELETE' AND NEW."linkType" = 'blocks' THEN
    PERFORM issue_blocking_recount(NEW."sourceId");
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER issue_links_blocking AFTER INSERT OR DELETE OR UPDATE OF "sourceId", "targetId", "linkType" ON "issue_links"
FOR EACH ROW EXECUTE FUNCTION issue_links_blocking_follow();

-- A target issue's state moves the counts of the issues blocking it.
CREATE FUNCTION issues_blocking_state_follow() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  blocker INTEGER;
BEGIN
  FOR blocker IN SELECT "sourceId" FROM issue_links WHERE "targetId" = NEW."id" AND "linkType" = 'blocks' LOOP
    PERFORM issue_blocking_recount(blocker);
  END LOOP;
  RETURN NULL;
END
$$;

CREATE TRIGGER issues_blocking_state AFTER UPDATE OF "state" ON "issues"
FOR EACH ROW WHEN (OLD."state" IS DISTINCT FROM NEW."state") EXECUTE FUNCTION issues_blocking_state_follow();

-- The counts as they are now, including any a cascade left stale.
UPDATE issues AS i SET "blockingIssuesCount" = (
  SELECT count(*)::int FROM issue_links AS l JOIN issues AS t ON t."id" = l."targetId"
  WHERE l."sourceId" = i."id" AND l."linkType" = 'blocks' AND t."state" = 'opened'
) WHERE i."id" IN (SELECT "sourceId" FROM issue_links WHERE "linkType" = 'blocks') OR i."blockingIssuesCount" <> 0;

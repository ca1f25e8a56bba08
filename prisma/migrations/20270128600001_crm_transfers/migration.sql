-- Customer relations follow the group tree as GitLab's transfers keep them (16.3's Groups::TransferService and
-- Projects::TransferService): a root group that becomes a subgroup hands its organizations and contacts to its new
-- root group, merged by name and by e-mail as CustomerRelations::Organization and Contact.move_to_root_group merge
-- them (an issue of a contact merged away takes the contact it merged into), and an issue whose project is now under
-- another root group loses the contacts of the old one (IssueContact.delete_for_group, delete_for_project). In the
-- database, so every path that moves a group or a project keeps them, whatever service does the move.

-- One statement moves a group's whole subtree (their traversal ids): its old and new rows, seen together.
CREATE FUNCTION crm_follow_namespace_moves() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  moved RECORD;
BEGIN
  FOR moved IN
    SELECT n."id" AS group_id, n."traversalIds"[1] AS root_id
    FROM new_rows AS n JOIN old_rows AS o ON o."id" = n."id"
    WHERE o."traversalIds"[1] = o."id" AND n."traversalIds"[1] <> n."id"
  LOOP
    UPDATE customer_relations_contacts AS c SET "organizationId" = target."id"
    FROM customer_relations_organizations AS src
    JOIN customer_relations_organizations AS target ON target."groupId" = moved.root_id AND lower(target."name") = lower(src."name")
    WHERE src."groupId" = moved.group_id AND c."organizationId" = src."id";
    DELETE FROM customer_relations_organizations AS src USING customer_relations_organizations AS target
    WHERE src."groupId" = moved.group_id AND target."groupId" = moved.root_id AND lower(target."name") = lower(src."name");
    UPDATE customer_relations_organizations SET "groupId" = moved.root_id WHERE "groupId" = moved.group_id;

    INSERT INTO issue_customer_relations_contacts ("issueId", "contactId")
    SELECT ic."issueId", target."id"
    FROM issue_customer_relations_contacts AS ic
    JOIN customer_relations_contacts AS src ON src."id" = ic."contactId"
    JOIN customer_relations_contacts AS target ON target."groupId" = moved.root_id AND lower(target."email") = lower(src."email")
    WHERE src."groupId" = moved.group_id
    ON CONFLICT DO NOTHING;
    DELETE FROM customer_relations_contacts AS src USING customer_relations_contacts AS target
    WHERE src."groupId" = moved.group_id AND target."groupId" = moved.root_id AND lower(target."email") = lower(src."email");
    UPDATE customer_relations_contacts SET "groupId" = moved.root_id WHERE "groupId" = moved.group_id;
  END LOOP;

  DELETE FROM issue_customer_relations_contacts AS ic
  USING issues AS i, projects AS p, new_rows AS n, old_rows AS o, customer_relations_contacts AS c
  WHERE ic."issueId" = i."id" AND i."projectId" = p."id" AND p."namespaceId" = n."id" AND o."id" = n."id"
    AND o."traversalIds"[1] IS DISTINCT FROM n."traversalIds"[1]
    AND c."id" = ic."contactId" AND c."groupId" IS DISTINCT FROM n."traversalIds"[1];
  RETURN NULL;
END
$$;

CREATE TRIGGER namespaces_crm_moves AFTER UPDATE ON "namespaces"
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION crm_follow_namespace_moves();

-- A project moved to a namespace under another root group.
CREATE FUNCTION crm_follow_project_moves() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  new_root INTEGER;
BEGIN
  SELECT "traversalIds"[1] INTO new_root FROM namespaces WHERE "id" = NEW."namespaceId";
  DELETE FROM issue_customer_relations_contacts AS ic
  USING issues AS i, customer_relations_contacts AS c
  WHERE ic."issueId" = i."id" AND i."projectId" = NEW."id" AND c."id" = ic."contactId" AND c."groupId" IS DISTINCT FROM new_root;
  RETURN NULL;
END
$$;

CREATE TRIGGER projects_crm_moves AFTER UPDATE OF "namespaceId" ON "projects"
FOR EACH ROW WHEN (OLD."namespaceId" IS DISTINCT FROM NEW."namespaceId")
EXECUTE FUNCTION crm_follow_project_moves();

-- Paths, usernames and e-mails are unique regardless of case, as GitLab's are: `Race3` is taken once `race3` is.
-- Prisma's schema cannot express indexes on lower(...), and its migration diff leaves them alone. The answer each
-- one gives a refused duplicate is in UNIQUE_INDEX_ERRORS (src/errors.ts).

-- Top-level groups and personal namespaces share one path space (a username is its namespace's path).
CREATE UNIQUE INDEX "namespaces_top_level_lower_path_key" ON "namespaces" (lower("path")) WHERE "parentId" IS NULL;

-- A subgroup's path is unique among its parent's subgroups.
CREATE UNIQUE INDEX "namespaces_parentId_lower_path_key" ON "namespaces" ("parentId", lower("path")) WHERE "parentId" IS NOT NULL;

-- A project's path is unique in its namespace.
CREATE UNIQUE INDEX "projects_namespaceId_lower_path_key" ON "projects" ("namespaceId", lower("path"));

CREATE UNIQUE INDEX "users_lower_username_key" ON "users" (lower("username"));

CREATE UNIQUE INDEX "users_lower_email_key" ON "users" (lower("email"));

-- Avatars are stored files; the rows keep their file names (GitLab's `avatar` columns), URLs are derived.
ALTER TABLE "users" RENAME COLUMN "avatarUrl" TO "avatar";
ALTER TABLE "namespaces" RENAME COLUMN "avatarUrl" TO "avatar";
ALTER TABLE "projects" ADD COLUMN "avatar" TEXT;

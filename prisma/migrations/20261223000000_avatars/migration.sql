-- Avatars are stored files: the rows keep their file names (the avatar columns of GitLab) and URLs are derived from them
ALTER TABLE "users" RENAME COLUMN "avatarUrl" TO "avatar";
ALTER TABLE "namespaces" RENAME COLUMN "avatarUrl" TO "avatar";
ALTER TABLE "projects" ADD COLUMN "avatar" TEXT;

-- References to users kept without a foreign key until now: none may point at a missing user once one exists.
UPDATE "members" SET "createdById" = NULL WHERE "createdById" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "users" u WHERE u."id" = "members"."createdById");
UPDATE "ci_runners" SET "creatorId" = NULL WHERE "creatorId" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "users" u WHERE u."id" = "ci_runners"."creatorId");
UPDATE "ci_job_token_project_scope_links" SET "addedById" = NULL WHERE "addedById" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "users" u WHERE u."id" = "ci_job_token_project_scope_links"."addedById");
UPDATE "ci_job_token_group_scope_links" SET "addedById" = NULL WHERE "addedById" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "users" u WHERE u."id" = "ci_job_token_group_scope_links"."addedById");
DELETE FROM "ci_triggers" WHERE "ownerId" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "users" u WHERE u."id" = "ci_triggers"."ownerId");

-- AlterTable
ALTER TABLE "personal_access_tokens" ADD COLUMN     "impersonation" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "bio" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "colorSchemeId" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "commitEmail" TEXT,
ADD COLUMN     "confirmedAt" TIMESTAMPTZ(3),
ADD COLUMN     "createdById" INTEGER,
ADD COLUMN     "discord" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "jobTitle" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "linkedin" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "location" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "note" TEXT,
ADD COLUMN     "organization" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "pronouns" TEXT,
ADD COLUMN     "publicEmail" TEXT,
ADD COLUMN     "skype" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "themeId" INTEGER NOT NULL DEFAULT 3,
ADD COLUMN     "twitter" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "userType" TEXT NOT NULL DEFAULT 'human',
ADD COLUMN     "websiteUrl" TEXT NOT NULL DEFAULT '';

-- CreateTable
CREATE TABLE "keys" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "fingerprintSha256" TEXT NOT NULL,
    "usageType" TEXT NOT NULL DEFAULT 'auth_and_signing',
    "expiresAt" TIMESTAMPTZ(3),
    "lastUsedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "emails" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "email" TEXT NOT NULL,
    "confirmedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "emails_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_statuses" (
    "userId" INTEGER NOT NULL,
    "emoji" TEXT NOT NULL DEFAULT 'speech_balloon',
    "message" TEXT,
    "availability" TEXT NOT NULL DEFAULT 'not_set',
    "clearStatusAt" TIMESTAMPTZ(3),

    CONSTRAINT "user_statuses_pkey" PRIMARY KEY ("userId")
);

-- CreateTable
CREATE TABLE "user_preferences" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "viewDiffsFileByFile" BOOLEAN NOT NULL DEFAULT false,
    "showWhitespaceInDiffs" BOOLEAN NOT NULL DEFAULT true,
    "passUserIdentitiesToCiJwt" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "user_preferences_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "keys_fingerprintSha256_key" ON "keys"("fingerprintSha256");

-- CreateIndex
CREATE INDEX "keys_userId_id_idx" ON "keys"("userId", "id");

-- CreateIndex
CREATE INDEX "keys_fingerprint_idx" ON "keys"("fingerprint");

-- CreateIndex
CREATE UNIQUE INDEX "emails_email_key" ON "emails"("email");

-- CreateIndex
CREATE INDEX "emails_userId_id_idx" ON "emails"("userId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "user_preferences_userId_key" ON "user_preferences"("userId");

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "members" ADD CONSTRAINT "members_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_runners" ADD CONSTRAINT "ci_runners_creatorId_fkey" FOREIGN KEY ("creatorId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_triggers" ADD CONSTRAINT "ci_triggers_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_job_token_project_scope_links" ADD CONSTRAINT "ci_job_token_project_scope_links_addedById_fkey" FOREIGN KEY ("addedById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ci_job_token_group_scope_links" ADD CONSTRAINT "ci_job_token_group_scope_links_addedById_fkey" FOREIGN KEY ("addedById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "keys" ADD CONSTRAINT "keys_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "emails" ADD CONSTRAINT "emails_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_statuses" ADD CONSTRAINT "user_statuses_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_preferences" ADD CONSTRAINT "user_preferences_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Users made before this migration: confirmed when created (administrators made them), and a preferences row each.
UPDATE "users" SET "confirmedAt" = "createdAt";
INSERT INTO "user_preferences" ("userId") SELECT "id" FROM "users";

-- E-mail addresses are unique regardless of case, as users' primary addresses are.
CREATE UNIQUE INDEX "emails_lower_email_key" ON "emails" (lower("email"));

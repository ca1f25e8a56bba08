-- CreateTable
CREATE TABLE "oauth_applications" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "secretDigest" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "scopes" TEXT[],
    "confidential" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "oauth_applications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_access_grants" (
    "id" SERIAL NOT NULL,
    "applicationId" INTEGER NOT NULL,
    "resourceOwnerId" INTEGER NOT NULL,
    "codeDigest" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "scopes" TEXT[],
    "expiresIn" INTEGER NOT NULL,
    "codeChallenge" TEXT,
    "codeChallengeMethod" TEXT,
    "revokedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_access_grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_access_tokens" (
    "id" SERIAL NOT NULL,
    "applicationId" INTEGER,
    "resourceOwnerId" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "refreshTokenDigest" TEXT,
    "scopes" TEXT[],
    "expiresIn" INTEGER NOT NULL,
    "revokedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_access_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "oauth_applications_uid_key" ON "oauth_applications"("uid");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_access_grants_codeDigest_key" ON "oauth_access_grants"("codeDigest");

-- CreateIndex
CREATE INDEX "oauth_access_grants_applicationId_idx" ON "oauth_access_grants"("applicationId");

-- CreateIndex
CREATE INDEX "oauth_access_grants_resourceOwnerId_idx" ON "oauth_access_grants"("resourceOwnerId");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_access_tokens_digest_key" ON "oauth_access_tokens"("digest");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_access_tokens_refreshTokenDigest_key" ON "oauth_access_tokens"("refreshTokenDigest");

-- CreateIndex
CREATE INDEX "oauth_access_tokens_applicationId_idx" ON "oauth_access_tokens"("applicationId");

-- CreateIndex
CREATE INDEX "oauth_access_tokens_resourceOwnerId_idx" ON "oauth_access_tokens"("resourceOwnerId");

-- AddForeignKey
ALTER TABLE "oauth_access_grants" ADD CONSTRAINT "oauth_access_grants_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "oauth_applications"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_access_grants" ADD CONSTRAINT "oauth_access_grants_resourceOwnerId_fkey" FOREIGN KEY ("resourceOwnerId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_access_tokens" ADD CONSTRAINT "oauth_access_tokens_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "oauth_applications"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_access_tokens" ADD CONSTRAINT "oauth_access_tokens_resourceOwnerId_fkey" FOREIGN KEY ("resourceOwnerId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

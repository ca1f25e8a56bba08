-- CreateTable
CREATE TABLE "error_tracking_client_keys" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "publicKey" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "error_tracking_client_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "error_tracking_errors" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "platform" TEXT,
    "status" TEXT NOT NULL DEFAULT 'unresolved',
    "eventsCount" INTEGER NOT NULL DEFAULT 0,
    "firstSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "error_tracking_errors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "error_tracking_error_events" (
    "id" SERIAL NOT NULL,
    "errorId" INTEGER NOT NULL,
    "description" TEXT NOT NULL,
    "environment" TEXT,
    "level" TEXT,
    "occurredAt" TIMESTAMPTZ(3) NOT NULL,
    "userIdentity" TEXT,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "error_tracking_error_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "error_tracking_sessions" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "sid" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "release" TEXT,
    "environment" TEXT,
    "distinctId" TEXT,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "error_tracking_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "error_tracking_client_keys_publicKey_key" ON "error_tracking_client_keys"("publicKey");

-- CreateIndex
CREATE INDEX "error_tracking_client_keys_projectId_id_idx" ON "error_tracking_client_keys"("projectId", "id");

-- CreateIndex
CREATE INDEX "error_tracking_errors_projectId_lastSeenAt_id_idx" ON "error_tracking_errors"("projectId", "lastSeenAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "error_tracking_errors_projectId_fingerprint_key" ON "error_tracking_errors"("projectId", "fingerprint");

-- CreateIndex
CREATE INDEX "error_tracking_error_events_errorId_occurredAt_idx" ON "error_tracking_error_events"("errorId", "occurredAt");

-- CreateIndex
CREATE INDEX "error_tracking_error_events_occurredAt_idx" ON "error_tracking_error_events"("occurredAt");

-- CreateIndex
CREATE INDEX "error_tracking_sessions_updatedAt_idx" ON "error_tracking_sessions"("updatedAt");

-- CreateIndex
CREATE UNIQUE INDEX "error_tracking_sessions_projectId_sid_key" ON "error_tracking_sessions"("projectId", "sid");

-- AddForeignKey
ALTER TABLE "error_tracking_client_keys" ADD CONSTRAINT "error_tracking_client_keys_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "error_tracking_errors" ADD CONSTRAINT "error_tracking_errors_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "error_tracking_error_events" ADD CONSTRAINT "error_tracking_error_events_errorId_fkey" FOREIGN KEY ("errorId") REFERENCES "error_tracking_errors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "error_tracking_sessions" ADD CONSTRAINT "error_tracking_sessions_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

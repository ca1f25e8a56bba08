-- CreateTable
CREATE TABLE "releases" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "tag" TEXT NOT NULL,
    "name" TEXT,
    "description" TEXT,
    "authorId" INTEGER,
    "sha" TEXT,
    "releasedAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "releases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "release_links" (
    "id" SERIAL NOT NULL,
    "releaseId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "filepath" TEXT,
    "linkType" TEXT NOT NULL DEFAULT 'other',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "release_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "release_evidences" (
    "id" SERIAL NOT NULL,
    "releaseId" INTEGER NOT NULL,
    "summary" JSONB NOT NULL,
    "summarySha" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "release_evidences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "milestone_releases" (
    "releaseId" INTEGER NOT NULL,
    "milestoneId" INTEGER NOT NULL,

    CONSTRAINT "milestone_releases_pkey" PRIMARY KEY ("releaseId","milestoneId")
);

-- CreateIndex
CREATE INDEX "releases_projectId_releasedAt_idx" ON "releases"("projectId", "releasedAt");

-- CreateIndex
CREATE UNIQUE INDEX "releases_projectId_tag_key" ON "releases"("projectId", "tag");

-- CreateIndex
CREATE UNIQUE INDEX "release_links_releaseId_name_key" ON "release_links"("releaseId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "release_links_releaseId_url_key" ON "release_links"("releaseId", "url");

-- CreateIndex
CREATE UNIQUE INDEX "release_links_releaseId_filepath_key" ON "release_links"("releaseId", "filepath");

-- CreateIndex
CREATE INDEX "release_evidences_releaseId_idx" ON "release_evidences"("releaseId");

-- CreateIndex
CREATE INDEX "milestone_releases_milestoneId_idx" ON "milestone_releases"("milestoneId");

-- AddForeignKey
ALTER TABLE "releases" ADD CONSTRAINT "releases_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "releases" ADD CONSTRAINT "releases_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "release_links" ADD CONSTRAINT "release_links_releaseId_fkey" FOREIGN KEY ("releaseId") REFERENCES "releases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "release_evidences" ADD CONSTRAINT "release_evidences_releaseId_fkey" FOREIGN KEY ("releaseId") REFERENCES "releases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "milestone_releases" ADD CONSTRAINT "milestone_releases_releaseId_fkey" FOREIGN KEY ("releaseId") REFERENCES "releases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "milestone_releases" ADD CONSTRAINT "milestone_releases_milestoneId_fkey" FOREIGN KEY ("milestoneId") REFERENCES "milestones"("id") ON DELETE CASCADE ON UPDATE CASCADE;

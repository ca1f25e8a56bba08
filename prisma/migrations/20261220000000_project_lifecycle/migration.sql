-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "forkedFromProjectId" INTEGER,
ADD COLUMN     "pendingDelete" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "requestAccessEnabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "topics" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "users_star_projects" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "projectId" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_star_projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "redirect_routes" (
    "id" SERIAL NOT NULL,
    "path" TEXT NOT NULL,
    "projectId" INTEGER,
    "namespaceId" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "redirect_routes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "users_star_projects_userId_projectId_idx" ON "users_star_projects"("userId", "projectId");

-- CreateIndex
CREATE UNIQUE INDEX "users_star_projects_projectId_userId_key" ON "users_star_projects"("projectId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "redirect_routes_path_key" ON "redirect_routes"("path");

-- CreateIndex
CREATE INDEX "redirect_routes_projectId_idx" ON "redirect_routes"("projectId");

-- CreateIndex
CREATE INDEX "redirect_routes_namespaceId_idx" ON "redirect_routes"("namespaceId");

-- CreateIndex
CREATE INDEX "projects_forkedFromProjectId_idx" ON "projects"("forkedFromProjectId");

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_forkedFromProjectId_fkey" FOREIGN KEY ("forkedFromProjectId") REFERENCES "projects"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users_star_projects" ADD CONSTRAINT "users_star_projects_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users_star_projects" ADD CONSTRAINT "users_star_projects_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "redirect_routes" ADD CONSTRAINT "redirect_routes_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "redirect_routes" ADD CONSTRAINT "redirect_routes_namespaceId_fkey" FOREIGN KEY ("namespaceId") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

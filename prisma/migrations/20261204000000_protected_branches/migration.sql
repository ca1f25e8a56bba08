-- CreateTable
CREATE TABLE "protected_branches" (
    "id" SERIAL NOT NULL,
    "projectId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "allowForcePush" BOOLEAN NOT NULL DEFAULT false,
    "codeOwnerApprovalRequired" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "protected_branches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "protected_branch_access_levels" (
    "id" SERIAL NOT NULL,
    "protectedBranchId" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "accessLevel" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "protected_branch_access_levels_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "protected_branches_projectId_name_key" ON "protected_branches"("projectId", "name");

-- CreateIndex
CREATE INDEX "protected_branch_access_levels_protectedBranchId_idx" ON "protected_branch_access_levels"("protectedBranchId");

-- AddForeignKey
ALTER TABLE "protected_branches" ADD CONSTRAINT "protected_branches_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "protected_branch_access_levels" ADD CONSTRAINT "protected_branch_access_levels_protectedBranchId_fkey" FOREIGN KEY ("protectedBranchId") REFERENCES "protected_branches"("id") ON DELETE CASCADE ON UPDATE CASCADE;

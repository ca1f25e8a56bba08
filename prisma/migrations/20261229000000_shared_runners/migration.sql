-- AlterTable
ALTER TABLE "namespaces" ADD COLUMN     "allowDescendantsOverrideDisabledSharedRunners" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "sharedRunnersEnabled" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "sharedRunnersEnabled" BOOLEAN NOT NULL DEFAULT true;

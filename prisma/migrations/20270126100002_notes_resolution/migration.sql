-- AlterTable
ALTER TABLE "notes" ADD COLUMN     "resolvedAt" TIMESTAMPTZ(3),
ADD COLUMN     "resolvedById" INTEGER;

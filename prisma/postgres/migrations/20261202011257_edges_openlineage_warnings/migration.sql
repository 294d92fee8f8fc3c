-- AlterTable
ALTER TABLE "OpenLineageEvent" ADD COLUMN     "warnings" TEXT;

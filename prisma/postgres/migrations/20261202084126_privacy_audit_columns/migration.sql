-- AlterTable
ALTER TABLE "PurposeAccess" ADD COLUMN     "columns" TEXT;

-- AlterTable
ALTER TABLE "PolicyTagAssignment" ADD COLUMN     "datasetName" TEXT,
ADD COLUMN     "datasetNamespace" TEXT;

-- AlterTable
ALTER TABLE "PolicyTagHolding" ADD COLUMN     "opaque" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "PolicyTagAssignment_datasetNamespace_datasetName_idx" ON "PolicyTagAssignment"("datasetNamespace", "datasetName");

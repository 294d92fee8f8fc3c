-- AlterTable
ALTER TABLE "PolicyTagAssignment" ADD COLUMN "datasetName" TEXT;
ALTER TABLE "PolicyTagAssignment" ADD COLUMN "datasetNamespace" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_PolicyTagHolding" (
    "nodeKind" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "originId" INTEGER NOT NULL,
    "depth" INTEGER NOT NULL,
    "opaque" BOOLEAN NOT NULL DEFAULT false,
    "frontier" INTEGER,

    PRIMARY KEY ("nodeKind", "artifactId", "field", "tag")
);
INSERT INTO "new_PolicyTagHolding" ("artifactId", "depth", "field", "frontier", "nodeKind", "originId", "tag") SELECT "artifactId", "depth", "field", "frontier", "nodeKind", "originId", "tag" FROM "PolicyTagHolding";
DROP TABLE "PolicyTagHolding";
ALTER TABLE "new_PolicyTagHolding" RENAME TO "PolicyTagHolding";
CREATE INDEX "PolicyTagHolding_tag_depth_idx" ON "PolicyTagHolding"("tag", "depth");
CREATE INDEX "PolicyTagHolding_originId_idx" ON "PolicyTagHolding"("originId");
CREATE INDEX "PolicyTagHolding_frontier_idx" ON "PolicyTagHolding"("frontier");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "PolicyTagAssignment_datasetNamespace_datasetName_idx" ON "PolicyTagAssignment"("datasetNamespace", "datasetName");

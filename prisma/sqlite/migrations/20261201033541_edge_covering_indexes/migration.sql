-- DropIndex
DROP INDEX "ProvenanceEdge_targetId_sourceId_idx";

-- DropIndex
DROP INDEX "ProvenanceEdge_sourceId_targetId_idx";

-- CreateIndex
CREATE INDEX "ProvenanceEdge_sourceId_targetId_targetType_idx" ON "ProvenanceEdge"("sourceId", "targetId", "targetType");

-- CreateIndex
CREATE INDEX "ProvenanceEdge_targetId_sourceId_sourceType_idx" ON "ProvenanceEdge"("targetId", "sourceId", "sourceType");

-- CreateTable
CREATE TABLE "PolicyTagAssignment" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tag" TEXT NOT NULL,
    "nodeKind" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "reportedSource" TEXT,
    "value" TEXT,
    "reason" TEXT,
    "assignedBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "runId" TEXT,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PolicyTagHolding" (
    "nodeKind" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "originId" INTEGER NOT NULL,
    "depth" INTEGER NOT NULL,
    "frontier" INTEGER,

    PRIMARY KEY ("nodeKind", "artifactId", "field", "tag")
);

-- CreateTable
CREATE TABLE "PolicyTagDowngrade" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "nodeKind" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "downgradedBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "originId" INTEGER NOT NULL,
    "depth" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ColumnFacet" (
    "artifactId" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "facet" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,

    PRIMARY KEY ("artifactId", "field", "facet")
);

-- CreateTable
CREATE TABLE "CatalogueFact" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "targetKind" TEXT NOT NULL,
    "artifactId" TEXT,
    "namespace" TEXT,
    "name" TEXT,
    "immutable" BOOLEAN NOT NULL,
    "objectLock" BOOLEAN NOT NULL,
    "rebuildableFromSource" BOOLEAN NOT NULL,
    "aggregate" BOOLEAN NOT NULL,
    "minGroupSize" INTEGER,
    "uniqueQuasiIdentifierCombinations" INTEGER,
    "quasiIdentifiers" TEXT,
    "holdsSubjectData" BOOLEAN NOT NULL,
    "note" TEXT,
    "reason" TEXT,
    "recordedBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "SubjectDeclaration" (
    "keyHash" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,

    PRIMARY KEY ("keyHash", "artifactId")
);

-- CreateTable
CREATE TABLE "ErasurePlan" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "keyHash" TEXT NOT NULL,
    "kThreshold" INTEGER NOT NULL,
    "plan" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ErasureExecution" (
    "planId" TEXT NOT NULL PRIMARY KEY,
    "executedBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "executedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "SubjectTombstone" (
    "keyHash" TEXT NOT NULL PRIMARY KEY,
    "planId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "PolicyTagAssignment_nodeKind_artifactId_field_tag_key" ON "PolicyTagAssignment"("nodeKind", "artifactId", "field", "tag");

-- CreateIndex
CREATE INDEX "PolicyTagHolding_tag_depth_idx" ON "PolicyTagHolding"("tag", "depth");

-- CreateIndex
CREATE INDEX "PolicyTagHolding_originId_idx" ON "PolicyTagHolding"("originId");

-- CreateIndex
CREATE INDEX "PolicyTagHolding_frontier_idx" ON "PolicyTagHolding"("frontier");

-- CreateIndex
CREATE UNIQUE INDEX "PolicyTagDowngrade_nodeKind_artifactId_field_tag_key" ON "PolicyTagDowngrade"("nodeKind", "artifactId", "field", "tag");

-- CreateIndex
CREATE INDEX "CatalogueFact_artifactId_idx" ON "CatalogueFact"("artifactId");

-- CreateIndex
CREATE INDEX "CatalogueFact_namespace_name_idx" ON "CatalogueFact"("namespace", "name");

-- CreateIndex
CREATE INDEX "SubjectDeclaration_artifactId_idx" ON "SubjectDeclaration"("artifactId");

-- CreateIndex
CREATE INDEX "ErasurePlan_keyHash_idx" ON "ErasurePlan"("keyHash");

-- Records of decisions are append-only (not expressible in the Prisma schema, so written by hand).
CREATE TRIGGER "PolicyTagAssignment_no_update" BEFORE UPDATE ON "PolicyTagAssignment"
BEGIN
    SELECT RAISE(ABORT, 'PolicyTagAssignment is append-only');
END;

CREATE TRIGGER "PolicyTagAssignment_no_delete" BEFORE DELETE ON "PolicyTagAssignment"
BEGIN
    SELECT RAISE(ABORT, 'PolicyTagAssignment is append-only');
END;

CREATE TRIGGER "PolicyTagDowngrade_no_update" BEFORE UPDATE ON "PolicyTagDowngrade"
BEGIN
    SELECT RAISE(ABORT, 'PolicyTagDowngrade is append-only');
END;

CREATE TRIGGER "PolicyTagDowngrade_no_delete" BEFORE DELETE ON "PolicyTagDowngrade"
BEGIN
    SELECT RAISE(ABORT, 'PolicyTagDowngrade is append-only');
END;

CREATE TRIGGER "ColumnFacet_no_update" BEFORE UPDATE ON "ColumnFacet"
BEGIN
    SELECT RAISE(ABORT, 'ColumnFacet is append-only');
END;

CREATE TRIGGER "ColumnFacet_no_delete" BEFORE DELETE ON "ColumnFacet"
BEGIN
    SELECT RAISE(ABORT, 'ColumnFacet is append-only');
END;

CREATE TRIGGER "CatalogueFact_no_update" BEFORE UPDATE ON "CatalogueFact"
BEGIN
    SELECT RAISE(ABORT, 'CatalogueFact is append-only');
END;

CREATE TRIGGER "CatalogueFact_no_delete" BEFORE DELETE ON "CatalogueFact"
BEGIN
    SELECT RAISE(ABORT, 'CatalogueFact is append-only');
END;

CREATE TRIGGER "SubjectDeclaration_no_update" BEFORE UPDATE ON "SubjectDeclaration"
BEGIN
    SELECT RAISE(ABORT, 'SubjectDeclaration is append-only');
END;

CREATE TRIGGER "SubjectDeclaration_no_delete" BEFORE DELETE ON "SubjectDeclaration"
BEGIN
    SELECT RAISE(ABORT, 'SubjectDeclaration is append-only');
END;

CREATE TRIGGER "ErasurePlan_no_update" BEFORE UPDATE ON "ErasurePlan"
BEGIN
    SELECT RAISE(ABORT, 'ErasurePlan is append-only');
END;

CREATE TRIGGER "ErasurePlan_no_delete" BEFORE DELETE ON "ErasurePlan"
BEGIN
    SELECT RAISE(ABORT, 'ErasurePlan is append-only');
END;

CREATE TRIGGER "ErasureExecution_no_update" BEFORE UPDATE ON "ErasureExecution"
BEGIN
    SELECT RAISE(ABORT, 'ErasureExecution is append-only');
END;

CREATE TRIGGER "ErasureExecution_no_delete" BEFORE DELETE ON "ErasureExecution"
BEGIN
    SELECT RAISE(ABORT, 'ErasureExecution is append-only');
END;

CREATE TRIGGER "SubjectTombstone_no_update" BEFORE UPDATE ON "SubjectTombstone"
BEGIN
    SELECT RAISE(ABORT, 'SubjectTombstone is append-only');
END;

CREATE TRIGGER "SubjectTombstone_no_delete" BEFORE DELETE ON "SubjectTombstone"
BEGIN
    SELECT RAISE(ABORT, 'SubjectTombstone is append-only');
END;

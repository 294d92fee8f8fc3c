-- CreateTable
CREATE TABLE "PolicyTagAssignment" (
    "id" SERIAL NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PolicyTagAssignment_pkey" PRIMARY KEY ("id")
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

    CONSTRAINT "PolicyTagHolding_pkey" PRIMARY KEY ("nodeKind","artifactId","field","tag")
);

-- CreateTable
CREATE TABLE "PolicyTagDowngrade" (
    "id" SERIAL NOT NULL,
    "nodeKind" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "downgradedBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "originId" INTEGER NOT NULL,
    "depth" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PolicyTagDowngrade_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ColumnFacet" (
    "artifactId" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "facet" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ColumnFacet_pkey" PRIMARY KEY ("artifactId","field","facet")
);

-- CreateTable
CREATE TABLE "CatalogueFact" (
    "id" SERIAL NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CatalogueFact_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SubjectDeclaration" (
    "keyHash" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SubjectDeclaration_pkey" PRIMARY KEY ("keyHash","artifactId")
);

-- CreateTable
CREATE TABLE "ErasurePlan" (
    "id" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "kThreshold" INTEGER NOT NULL,
    "plan" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ErasurePlan_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ErasureExecution" (
    "planId" TEXT NOT NULL,
    "executedBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "executedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ErasureExecution_pkey" PRIMARY KEY ("planId")
);

-- CreateTable
CREATE TABLE "SubjectTombstone" (
    "keyHash" TEXT NOT NULL,
    "planId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SubjectTombstone_pkey" PRIMARY KEY ("keyHash")
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
-- The function body is an escape string with \073 standing for each semicolon (the migration
-- tooling splits scripts at every semicolon character), as for AuditEvent.
CREATE FUNCTION "compliance_append_only"() RETURNS trigger LANGUAGE plpgsql
    AS E'BEGIN RAISE EXCEPTION ''% is append-only'', TG_TABLE_NAME\073 END\073';

CREATE TRIGGER "PolicyTagAssignment_no_update_or_delete" BEFORE UPDATE OR DELETE ON "PolicyTagAssignment"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "PolicyTagAssignment_no_truncate" BEFORE TRUNCATE ON "PolicyTagAssignment"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "PolicyTagDowngrade_no_update_or_delete" BEFORE UPDATE OR DELETE ON "PolicyTagDowngrade"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "PolicyTagDowngrade_no_truncate" BEFORE TRUNCATE ON "PolicyTagDowngrade"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "ColumnFacet_no_update_or_delete" BEFORE UPDATE OR DELETE ON "ColumnFacet"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "ColumnFacet_no_truncate" BEFORE TRUNCATE ON "ColumnFacet"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "CatalogueFact_no_update_or_delete" BEFORE UPDATE OR DELETE ON "CatalogueFact"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "CatalogueFact_no_truncate" BEFORE TRUNCATE ON "CatalogueFact"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "SubjectDeclaration_no_update_or_delete" BEFORE UPDATE OR DELETE ON "SubjectDeclaration"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "SubjectDeclaration_no_truncate" BEFORE TRUNCATE ON "SubjectDeclaration"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "ErasurePlan_no_update_or_delete" BEFORE UPDATE OR DELETE ON "ErasurePlan"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "ErasurePlan_no_truncate" BEFORE TRUNCATE ON "ErasurePlan"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "ErasureExecution_no_update_or_delete" BEFORE UPDATE OR DELETE ON "ErasureExecution"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "ErasureExecution_no_truncate" BEFORE TRUNCATE ON "ErasureExecution"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "SubjectTombstone_no_update_or_delete" BEFORE UPDATE OR DELETE ON "SubjectTombstone"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "SubjectTombstone_no_truncate" BEFORE TRUNCATE ON "SubjectTombstone"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

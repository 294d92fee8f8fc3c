-- CreateTable
CREATE TABLE "TagPurposePolicy" (
    "id" SERIAL NOT NULL,
    "tag" TEXT NOT NULL,
    "purposes" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "declaredBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TagPurposePolicy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunPurpose" (
    "runId" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "declaredBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RunPurpose_pkey" PRIMARY KEY ("runId")
);

-- CreateTable
CREATE TABLE "PurposeAccess" (
    "id" SERIAL NOT NULL,
    "principal" TEXT NOT NULL,
    "tokenId" TEXT,
    "purpose" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "tags" TEXT NOT NULL,
    "via" TEXT NOT NULL,
    "runId" TEXT,
    "requestId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PurposeAccess_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "TagPurposePolicy_tag_id_idx" ON "TagPurposePolicy"("tag", "id");

-- CreateIndex
CREATE INDEX "PurposeAccess_kind_artifactId_field_idx" ON "PurposeAccess"("kind", "artifactId", "field");

-- CreateIndex
CREATE INDEX "PurposeAccess_purpose_idx" ON "PurposeAccess"("purpose");

-- Declarations of purposes, runs' purposes and the accesses under a purpose are records of what happened: append-only (compliance_append_only, from the compliance migration).
CREATE TRIGGER "TagPurposePolicy_no_update_or_delete" BEFORE UPDATE OR DELETE ON "TagPurposePolicy"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "TagPurposePolicy_no_truncate" BEFORE TRUNCATE ON "TagPurposePolicy"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "RunPurpose_no_update_or_delete" BEFORE UPDATE OR DELETE ON "RunPurpose"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "RunPurpose_no_truncate" BEFORE TRUNCATE ON "RunPurpose"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "PurposeAccess_no_update_or_delete" BEFORE UPDATE OR DELETE ON "PurposeAccess"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "PurposeAccess_no_truncate" BEFORE TRUNCATE ON "PurposeAccess"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

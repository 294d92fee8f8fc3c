-- CreateTable
CREATE TABLE "TagPurposePolicy" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tag" TEXT NOT NULL,
    "purposes" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "declaredBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "RunPurpose" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "purpose" TEXT NOT NULL,
    "declaredBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PurposeAccess" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "createdAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "TagPurposePolicy_tag_id_idx" ON "TagPurposePolicy"("tag", "id");

-- CreateIndex
CREATE INDEX "PurposeAccess_kind_artifactId_field_idx" ON "PurposeAccess"("kind", "artifactId", "field");

-- CreateIndex
CREATE INDEX "PurposeAccess_purpose_idx" ON "PurposeAccess"("purpose");

-- Declarations of purposes, runs' purposes and the accesses under a purpose are records of what happened: append-only.
CREATE TRIGGER "TagPurposePolicy_no_update" BEFORE UPDATE ON "TagPurposePolicy"
BEGIN
    SELECT RAISE(ABORT, 'TagPurposePolicy is append-only');
END;

CREATE TRIGGER "TagPurposePolicy_no_delete" BEFORE DELETE ON "TagPurposePolicy"
BEGIN
    SELECT RAISE(ABORT, 'TagPurposePolicy is append-only');
END;

CREATE TRIGGER "RunPurpose_no_update" BEFORE UPDATE ON "RunPurpose"
BEGIN
    SELECT RAISE(ABORT, 'RunPurpose is append-only');
END;

CREATE TRIGGER "RunPurpose_no_delete" BEFORE DELETE ON "RunPurpose"
BEGIN
    SELECT RAISE(ABORT, 'RunPurpose is append-only');
END;

CREATE TRIGGER "PurposeAccess_no_update" BEFORE UPDATE ON "PurposeAccess"
BEGIN
    SELECT RAISE(ABORT, 'PurposeAccess is append-only');
END;

CREATE TRIGGER "PurposeAccess_no_delete" BEFORE DELETE ON "PurposeAccess"
BEGIN
    SELECT RAISE(ABORT, 'PurposeAccess is append-only');
END;

-- CreateTable
CREATE TABLE "PrivacyBudget" (
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "epsilonTotal" BIGINT NOT NULL,
    "deltaTotal" BIGINT,
    "perReleaseEpsilon" BIGINT,
    "epsilonSpent" BIGINT NOT NULL DEFAULT 0,
    "deltaSpent" BIGINT NOT NULL DEFAULT 0,
    "accounting" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PrivacyBudget_pkey" PRIMARY KEY ("namespace","name")
);

-- CreateTable
CREATE TABLE "PrivacyRelease" (
    "runId" TEXT NOT NULL,
    "epsilon" BIGINT NOT NULL,
    "delta" BIGINT NOT NULL,
    "mechanism" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PrivacyRelease_pkey" PRIMARY KEY ("runId")
);

-- CreateTable
CREATE TABLE "PrivacyLedgerEntry" (
    "id" SERIAL NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "epsilon" BIGINT NOT NULL,
    "delta" BIGINT NOT NULL,
    "mechanism" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "tokenId" TEXT,
    "epsilonSpentAfter" BIGINT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PrivacyLedgerEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PrivacyBudgetChange" (
    "id" SERIAL NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "epsilonTotal" BIGINT NOT NULL,
    "deltaTotal" BIGINT,
    "perReleaseEpsilon" BIGINT,
    "previousEpsilonTotal" BIGINT,
    "previousDeltaTotal" BIGINT,
    "previousPerReleaseEpsilon" BIGINT,
    "reason" TEXT NOT NULL,
    "changedBy" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PrivacyBudgetChange_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PrivacyLedgerEntry_runId_idx" ON "PrivacyLedgerEntry"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "PrivacyLedgerEntry_namespace_name_runId_key" ON "PrivacyLedgerEntry"("namespace", "name", "runId");

-- CreateIndex
CREATE INDEX "PrivacyBudgetChange_namespace_name_idx" ON "PrivacyBudgetChange"("namespace", "name");

-- The ledger, the releases and the budget changes are records of what happened: append-only (compliance_append_only, from the compliance migration).
CREATE TRIGGER "PrivacyRelease_no_update_or_delete" BEFORE UPDATE OR DELETE ON "PrivacyRelease"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "PrivacyRelease_no_truncate" BEFORE TRUNCATE ON "PrivacyRelease"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "PrivacyLedgerEntry_no_update_or_delete" BEFORE UPDATE OR DELETE ON "PrivacyLedgerEntry"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "PrivacyLedgerEntry_no_truncate" BEFORE TRUNCATE ON "PrivacyLedgerEntry"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "PrivacyBudgetChange_no_update_or_delete" BEFORE UPDATE OR DELETE ON "PrivacyBudgetChange"
    FOR EACH ROW EXECUTE FUNCTION "compliance_append_only"();

CREATE TRIGGER "PrivacyBudgetChange_no_truncate" BEFORE TRUNCATE ON "PrivacyBudgetChange"
    FOR EACH STATEMENT EXECUTE FUNCTION "compliance_append_only"();


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
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("namespace", "name")
);

-- CreateTable
CREATE TABLE "PrivacyRelease" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "epsilon" BIGINT NOT NULL,
    "delta" BIGINT NOT NULL,
    "mechanism" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PrivacyLedgerEntry" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "epsilon" BIGINT NOT NULL,
    "delta" BIGINT NOT NULL,
    "mechanism" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "tokenId" TEXT,
    "epsilonSpentAfter" BIGINT NOT NULL,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PrivacyBudgetChange" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "createdAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "PrivacyLedgerEntry_runId_idx" ON "PrivacyLedgerEntry"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "PrivacyLedgerEntry_namespace_name_runId_key" ON "PrivacyLedgerEntry"("namespace", "name", "runId");

-- CreateIndex
CREATE INDEX "PrivacyBudgetChange_namespace_name_idx" ON "PrivacyBudgetChange"("namespace", "name");

-- The ledger, the releases and the budget changes are records of what happened: append-only.
CREATE TRIGGER "PrivacyRelease_no_update" BEFORE UPDATE ON "PrivacyRelease"
BEGIN
    SELECT RAISE(ABORT, 'PrivacyRelease is append-only');
END;

CREATE TRIGGER "PrivacyRelease_no_delete" BEFORE DELETE ON "PrivacyRelease"
BEGIN
    SELECT RAISE(ABORT, 'PrivacyRelease is append-only');
END;

CREATE TRIGGER "PrivacyLedgerEntry_no_update" BEFORE UPDATE ON "PrivacyLedgerEntry"
BEGIN
    SELECT RAISE(ABORT, 'PrivacyLedgerEntry is append-only');
END;

CREATE TRIGGER "PrivacyLedgerEntry_no_delete" BEFORE DELETE ON "PrivacyLedgerEntry"
BEGIN
    SELECT RAISE(ABORT, 'PrivacyLedgerEntry is append-only');
END;

CREATE TRIGGER "PrivacyBudgetChange_no_update" BEFORE UPDATE ON "PrivacyBudgetChange"
BEGIN
    SELECT RAISE(ABORT, 'PrivacyBudgetChange is append-only');
END;

CREATE TRIGGER "PrivacyBudgetChange_no_delete" BEFORE DELETE ON "PrivacyBudgetChange"
BEGIN
    SELECT RAISE(ABORT, 'PrivacyBudgetChange is append-only');
END;


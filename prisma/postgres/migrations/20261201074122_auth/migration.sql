-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scopes" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT NOT NULL,
    "lastUsedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" SERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "tokenId" TEXT,
    "via" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targets" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "requestId" TEXT,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_secretHash_key" ON "ApiToken"("secretHash");

-- CreateIndex
CREATE INDEX "ApiToken_name_idx" ON "ApiToken"("name");

-- CreateIndex
CREATE INDEX "AuditEvent_tokenId_idx" ON "AuditEvent"("tokenId");

-- The audit trail is append-only (not expressible in the Prisma schema, so written by hand).
-- The function body is an escape string with \073 standing for each semicolon, because the
-- migration tooling (the pg driver adapter) splits scripts at every semicolon character.
CREATE FUNCTION "AuditEvent_append_only"() RETURNS trigger LANGUAGE plpgsql
    AS E'BEGIN RAISE EXCEPTION ''AuditEvent is append-only''\073 END\073';

CREATE TRIGGER "AuditEvent_no_update_or_delete" BEFORE UPDATE OR DELETE ON "AuditEvent"
    FOR EACH ROW EXECUTE FUNCTION "AuditEvent_append_only"();

CREATE TRIGGER "AuditEvent_no_truncate" BEFORE TRUNCATE ON "AuditEvent"
    FOR EACH STATEMENT EXECUTE FUNCTION "AuditEvent_append_only"();

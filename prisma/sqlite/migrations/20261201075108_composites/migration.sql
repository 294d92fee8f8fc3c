-- CreateTable
CREATE TABLE "CompositeDefinition" (
    "operationId" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "intermediates" TEXT NOT NULL,
    "definition" TEXT NOT NULL,
    "allowUnsound" BOOLEAN NOT NULL,
    "sound" BOOLEAN NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "CompositeRun" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "compositeId" TEXT NOT NULL,
    "flags" TEXT NOT NULL,
    "intermediates" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "CompositeStepRun" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "compositeRunId" TEXT NOT NULL,
    "step" TEXT NOT NULL,
    "position" INTEGER NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "CompositeDefinition_name_version_key" ON "CompositeDefinition"("name", "version");

-- CreateIndex
CREATE INDEX "CompositeRun_compositeId_idx" ON "CompositeRun"("compositeId");

-- CreateIndex
CREATE INDEX "CompositeStepRun_compositeRunId_idx" ON "CompositeStepRun"("compositeRunId");

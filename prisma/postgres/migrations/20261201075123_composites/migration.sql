-- CreateTable
CREATE TABLE "CompositeDefinition" (
    "operationId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "intermediates" TEXT NOT NULL,
    "definition" TEXT NOT NULL,
    "allowUnsound" BOOLEAN NOT NULL,
    "sound" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CompositeDefinition_pkey" PRIMARY KEY ("operationId")
);

-- CreateTable
CREATE TABLE "CompositeRun" (
    "runId" TEXT NOT NULL,
    "compositeId" TEXT NOT NULL,
    "flags" TEXT NOT NULL,
    "intermediates" TEXT NOT NULL,

    CONSTRAINT "CompositeRun_pkey" PRIMARY KEY ("runId")
);

-- CreateTable
CREATE TABLE "CompositeStepRun" (
    "runId" TEXT NOT NULL,
    "compositeRunId" TEXT NOT NULL,
    "step" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "CompositeStepRun_pkey" PRIMARY KEY ("runId")
);

-- CreateIndex
CREATE UNIQUE INDEX "CompositeDefinition_name_version_key" ON "CompositeDefinition"("name", "version");

-- CreateIndex
CREATE INDEX "CompositeRun_compositeId_idx" ON "CompositeRun"("compositeId");

-- CreateIndex
CREATE INDEX "CompositeStepRun_compositeRunId_idx" ON "CompositeStepRun"("compositeRunId");

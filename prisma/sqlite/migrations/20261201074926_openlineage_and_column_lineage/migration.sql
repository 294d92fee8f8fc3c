-- CreateTable
CREATE TABLE "ColumnEdge" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "sourceId" TEXT NOT NULL,
    "sourceField" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "targetField" TEXT,
    "runId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "subtype" TEXT,
    "description" TEXT,
    "masking" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "DatasetColumn" (
    "artifactId" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "type" TEXT,
    "description" TEXT,

    PRIMARY KEY ("artifactId", "field")
);

-- CreateTable
CREATE TABLE "OpenLineageEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "eventKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "eventType" TEXT,
    "eventTime" DATETIME NOT NULL,
    "runId" TEXT,
    "jobNamespace" TEXT,
    "jobName" TEXT,
    "datasetNamespace" TEXT,
    "datasetName" TEXT,
    "producer" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "facts" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "OpenLineageRun" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "jobNamespace" TEXT NOT NULL,
    "jobName" TEXT NOT NULL,
    "events" INTEGER NOT NULL,
    "firstEventTime" DATETIME,
    "lastEventTime" DATETIME,
    "failureMessage" TEXT,
    "failureLanguage" TEXT,
    "failureStackTrace" TEXT,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "DatasetVersionUse" (
    "runId" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "pinned" BOOLEAN NOT NULL,
    "resolvedBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("runId", "artifactId")
);

-- CreateIndex
CREATE INDEX "ColumnEdge_sourceId_sourceField_targetId_targetField_idx" ON "ColumnEdge"("sourceId", "sourceField", "targetId", "targetField");

-- CreateIndex
CREATE INDEX "ColumnEdge_targetId_targetField_sourceId_sourceField_idx" ON "ColumnEdge"("targetId", "targetField", "sourceId", "sourceField");

-- CreateIndex
CREATE INDEX "ColumnEdge_runId_idx" ON "ColumnEdge"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "OpenLineageEvent_eventKey_key" ON "OpenLineageEvent"("eventKey");

-- CreateIndex
CREATE INDEX "OpenLineageEvent_runId_eventTime_idx" ON "OpenLineageEvent"("runId", "eventTime");

-- CreateIndex
CREATE INDEX "OpenLineageEvent_jobNamespace_jobName_idx" ON "OpenLineageEvent"("jobNamespace", "jobName");

-- CreateIndex
CREATE INDEX "OpenLineageEvent_datasetNamespace_datasetName_idx" ON "OpenLineageEvent"("datasetNamespace", "datasetName");

-- CreateIndex
CREATE INDEX "OpenLineageRun_jobNamespace_jobName_idx" ON "OpenLineageRun"("jobNamespace", "jobName");

-- CreateIndex
CREATE INDEX "DatasetVersionUse_artifactId_idx" ON "DatasetVersionUse"("artifactId");

-- CreateTable
CREATE TABLE "ColumnEdge" (
    "id" SERIAL NOT NULL,
    "sourceId" TEXT NOT NULL,
    "sourceField" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "targetField" TEXT,
    "runId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "subtype" TEXT,
    "description" TEXT,
    "masking" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ColumnEdge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DatasetColumn" (
    "artifactId" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "type" TEXT,
    "description" TEXT,

    CONSTRAINT "DatasetColumn_pkey" PRIMARY KEY ("artifactId","field")
);

-- CreateTable
CREATE TABLE "OpenLineageEvent" (
    "id" SERIAL NOT NULL,
    "eventKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "eventType" TEXT,
    "eventTime" TIMESTAMP(3) NOT NULL,
    "runId" TEXT,
    "jobNamespace" TEXT,
    "jobName" TEXT,
    "datasetNamespace" TEXT,
    "datasetName" TEXT,
    "producer" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "facts" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OpenLineageEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OpenLineageRun" (
    "runId" TEXT NOT NULL,
    "jobNamespace" TEXT NOT NULL,
    "jobName" TEXT NOT NULL,
    "events" INTEGER NOT NULL,
    "firstEventTime" TIMESTAMP(3),
    "lastEventTime" TIMESTAMP(3),
    "failureMessage" TEXT,
    "failureLanguage" TEXT,
    "failureStackTrace" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OpenLineageRun_pkey" PRIMARY KEY ("runId")
);

-- CreateTable
CREATE TABLE "DatasetVersionUse" (
    "runId" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "pinned" BOOLEAN NOT NULL,
    "resolvedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DatasetVersionUse_pkey" PRIMARY KEY ("runId","artifactId")
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

-- CreateTable
CREATE TABLE "Operation" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "groupBy" TEXT,
    "declaration" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Operation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OperationRole" (
    "operationId" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "artifactType" TEXT NOT NULL,
    "required" BOOLEAN NOT NULL DEFAULT true,
    "lineageFrom" TEXT,
    "lineageRoles" TEXT,

    CONSTRAINT "OperationRole_pkey" PRIMARY KEY ("operationId","direction","role")
);

-- CreateTable
CREATE TABLE "Execution" (
    "runId" TEXT NOT NULL,
    "specId" TEXT NOT NULL,
    "operationId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "params" TEXT,
    "agent" TEXT,
    "startedAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),
    "recordedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "pinInputVersions" TEXT,
    "pinCodeVersion" TEXT,
    "pinImageDigest" TEXT,
    "pinDeterministic" BOOLEAN,
    "pipeline" TEXT,
    "step" INTEGER,
    "parentRunId" TEXT,

    CONSTRAINT "Execution_pkey" PRIMARY KEY ("runId")
);

-- CreateTable
CREATE TABLE "Artifact" (
    "id" TEXT NOT NULL,
    "artifactType" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,
    "originalName" TEXT NOT NULL,
    "metadata" TEXT,
    "datasetNamespace" TEXT,
    "datasetName" TEXT,
    "datasetVersion" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Artifact_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExecutionArtifact" (
    "runId" TEXT NOT NULL,
    "artifactId" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "ExecutionArtifact_pkey" PRIMARY KEY ("runId","direction","role","artifactId")
);

-- CreateTable
CREATE TABLE "ProvenanceEdge" (
    "id" SERIAL NOT NULL,
    "sourceId" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "groupId" TEXT,
    "stepBoundary" BOOLEAN NOT NULL DEFAULT false,
    "sourceType" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProvenanceEdge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PipelineStep" (
    "pipeline" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "operationId" TEXT NOT NULL,
    "inputRoles" TEXT NOT NULL,
    "outputRoles" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PipelineStep_pkey" PRIMARY KEY ("pipeline","step")
);

-- CreateTable
CREATE TABLE "PipelineFlow" (
    "pipeline" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "inputRole" TEXT NOT NULL,
    "sourceStep" INTEGER NOT NULL,
    "sourceRole" TEXT NOT NULL,

    CONSTRAINT "PipelineFlow_pkey" PRIMARY KEY ("pipeline","step","inputRole","sourceStep","sourceRole")
);

-- CreateIndex
CREATE UNIQUE INDEX "Operation_name_version_key" ON "Operation"("name", "version");

-- CreateIndex
CREATE INDEX "Execution_specId_idx" ON "Execution"("specId");

-- CreateIndex
CREATE INDEX "Execution_operationId_idx" ON "Execution"("operationId");

-- CreateIndex
CREATE INDEX "Execution_pipeline_step_idx" ON "Execution"("pipeline", "step");

-- CreateIndex
CREATE INDEX "Execution_status_idx" ON "Execution"("status");

-- CreateIndex
CREATE INDEX "Execution_parentRunId_idx" ON "Execution"("parentRunId");

-- CreateIndex
CREATE INDEX "Artifact_artifactType_idx" ON "Artifact"("artifactType");

-- CreateIndex
CREATE INDEX "Artifact_datasetNamespace_datasetName_idx" ON "Artifact"("datasetNamespace", "datasetName");

-- CreateIndex
CREATE INDEX "ExecutionArtifact_artifactId_direction_idx" ON "ExecutionArtifact"("artifactId", "direction");

-- CreateIndex
CREATE INDEX "ProvenanceEdge_sourceId_targetId_idx" ON "ProvenanceEdge"("sourceId", "targetId");

-- CreateIndex
CREATE INDEX "ProvenanceEdge_targetId_sourceId_idx" ON "ProvenanceEdge"("targetId", "sourceId");

-- CreateIndex
CREATE INDEX "ProvenanceEdge_groupId_idx" ON "ProvenanceEdge"("groupId");

-- CreateIndex
CREATE INDEX "ProvenanceEdge_runId_idx" ON "ProvenanceEdge"("runId");

-- AddForeignKey
ALTER TABLE "OperationRole" ADD CONSTRAINT "OperationRole_operationId_fkey" FOREIGN KEY ("operationId") REFERENCES "Operation"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Execution" ADD CONSTRAINT "Execution_operationId_fkey" FOREIGN KEY ("operationId") REFERENCES "Operation"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExecutionArtifact" ADD CONSTRAINT "ExecutionArtifact_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Execution"("runId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExecutionArtifact" ADD CONSTRAINT "ExecutionArtifact_artifactId_fkey" FOREIGN KEY ("artifactId") REFERENCES "Artifact"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PipelineStep" ADD CONSTRAINT "PipelineStep_operationId_fkey" FOREIGN KEY ("operationId") REFERENCES "Operation"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

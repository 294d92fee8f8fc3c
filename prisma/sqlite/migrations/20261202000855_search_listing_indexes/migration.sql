-- DropIndex
DROP INDEX "Execution_status_idx";

-- DropIndex
DROP INDEX "Execution_operationId_idx";

-- CreateIndex
CREATE INDEX "Execution_operationId_recordedAt_idx" ON "Execution"("operationId", "recordedAt");

-- CreateIndex
CREATE INDEX "Execution_pipeline_recordedAt_idx" ON "Execution"("pipeline", "recordedAt");

-- CreateIndex
CREATE INDEX "Execution_status_recordedAt_idx" ON "Execution"("status", "recordedAt");

-- CreateIndex
CREATE INDEX "Execution_recordedAt_runId_idx" ON "Execution"("recordedAt", "runId");

-- CreateIndex
CREATE INDEX "Execution_startedAt_runId_idx" ON "Execution"("startedAt", "runId");

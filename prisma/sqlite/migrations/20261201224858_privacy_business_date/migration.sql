-- AlterTable
ALTER TABLE "Execution" ADD COLUMN "businessDate" TEXT;

-- Backfill: a run recorded before has the business date its params say (OpenLineage's nominalTime
-- facet, its nominalStartTime date as written). No operation declared a business-date parameter yet.
UPDATE "Execution" SET "businessDate" = substr(json_extract("params", '$.nominalTime.nominalStartTime'), 1, 10)
WHERE "params" IS NOT NULL AND json_valid("params") AND json_type("params", '$.nominalTime.nominalStartTime') = 'text'
  AND substr(json_extract("params", '$.nominalTime.nominalStartTime'), 1, 10) GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]';

-- AlterTable
ALTER TABLE "Execution" ADD COLUMN     "businessDate" TEXT;

-- Backfill: a run recorded before has the business date its params say (OpenLineage's nominalTime
-- facet, its nominalStartTime date as written). No operation declared a business-date parameter yet.
UPDATE "Execution" SET "businessDate" = substr("params"::jsonb #>> '{nominalTime,nominalStartTime}', 1, 10)
WHERE "params" IS NOT NULL AND jsonb_typeof("params"::jsonb #> '{nominalTime,nominalStartTime}') = 'string'
  AND substr("params"::jsonb #>> '{nominalTime,nominalStartTime}', 1, 10) ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';

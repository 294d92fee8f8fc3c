import { isDiscardedStep, sqlInvariant } from "./sql-invariant";

/**
 * Seed "Completeness validation", as stored: an output of a role declared to derive from inputs or
 * outputs (lineageFrom set, and not the generative {inputs: []}) has a source edge from its run.
 * Curator passthroughs (lineageFrom null) and orphans need none; a config reference alone is not a source.
 * A step of a DISCARD composite run has lost its internal edges by design (the shortcuts stand for them).
 */
export const outputSources = sqlInvariant({
  name: "output-sources",
  description: "Every non-orphan output has a source edge.",
  checked: `SELECT COUNT(*) AS "n" FROM "ExecutionArtifact" WHERE "direction" = 'PRODUCED'`,
  violations: `SELECT l."runId" AS "subject", 'output ' || l."artifactId" || ' of role ''' || l."role" || ''' has no source edge' AS "detail"
       FROM "ExecutionArtifact" l
       JOIN "Execution" x ON x."runId" = l."runId"
       JOIN "OperationRole" r ON r."operationId" = x."operationId" AND r."direction" = 'OUTPUT' AND r."role" = l."role"
      WHERE l."direction" = 'PRODUCED' AND r."lineageFrom" IS NOT NULL AND NOT (r."lineageFrom" = 'INPUTS' AND r."lineageRoles" = '[]')
        AND NOT ${isDiscardedStep(`l."runId"`)}
        AND NOT EXISTS (SELECT 1 FROM "ProvenanceEdge" e WHERE e."runId" = l."runId" AND e."targetId" = l."artifactId" AND e."kind" <> 'CONFIG_REFERENCE')`,
});

import { isDiscardedStep, sqlInvariant, text } from "./sql-invariant";

/**
 * An execution is written whole or not at all: its links (consumed and produced) and its edges never
 * exist without it, every role its operation requires is linked (a required output role: when it
 * COMPLETED, as artifact validation demands), and every edge it recorded derives one of its outputs.
 * (A missing edge of an output is output-sources' to find.) A step of a DISCARD composite run keeps
 * only its links to the composite's inputs and outputs, so its roles are not checked.
 */
export const executionRows = sqlInvariant({
  name: "execution-rows",
  description: "Every execution's produced artifacts, consumed links and edges are all present or all absent.",
  checked: `SELECT COUNT(*) AS "n" FROM "Execution"`,
  violations: [
    `SELECT e."runId" AS "subject", 'edge ' || ${text(`e."id"`)} || ' names no recorded execution' AS "detail"
       FROM "ProvenanceEdge" e WHERE NOT EXISTS (SELECT 1 FROM "Execution" x WHERE x."runId" = e."runId")`,
    `SELECT l."runId" AS "subject", l."direction" || ' link to ' || l."artifactId" || ' names no recorded execution' AS "detail"
       FROM "ExecutionArtifact" l WHERE NOT EXISTS (SELECT 1 FROM "Execution" x WHERE x."runId" = l."runId")`,
    `SELECT l."runId" AS "subject", l."direction" || ' link names artifact ' || l."artifactId" || ', which is not stored' AS "detail"
       FROM "ExecutionArtifact" l WHERE NOT EXISTS (SELECT 1 FROM "Artifact" a WHERE a."id" = l."artifactId")`,
    `SELECT x."runId" AS "subject", 'required ' || LOWER(r."direction") || ' role ''' || r."role" || ''' has no link' AS "detail"
       FROM "Execution" x JOIN "OperationRole" r ON r."operationId" = x."operationId" AND r."required" = TRUE
      WHERE (r."direction" = 'INPUT' OR x."status" = 'COMPLETED') AND NOT ${isDiscardedStep(`x."runId"`)}
        AND NOT EXISTS (SELECT 1 FROM "ExecutionArtifact" l WHERE l."runId" = x."runId" AND l."role" = r."role"
                          AND l."direction" = CASE r."direction" WHEN 'INPUT' THEN 'CONSUMED' ELSE 'PRODUCED' END)`,
    `SELECT e."runId" AS "subject", 'edge ' || ${text(`e."id"`)} || ' derives ' || e."targetId" || ', which the run did not produce' AS "detail"
       FROM "ProvenanceEdge" e
      WHERE EXISTS (SELECT 1 FROM "Execution" x WHERE x."runId" = e."runId")
        AND NOT EXISTS (SELECT 1 FROM "ExecutionArtifact" l WHERE l."runId" = e."runId" AND l."artifactId" = e."targetId" AND l."direction" = 'PRODUCED')`,
  ].join(" UNION ALL "),
});

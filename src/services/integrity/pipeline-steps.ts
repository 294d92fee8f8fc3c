import { sqlInvariant, text } from "./sql-invariant";

/**
 * The macro graph is drawn from the steps table alone, so it must say what the executions say: each
 * execution's (pipeline, step) has a row naming that execution's operation, and no step row stands
 * without an execution (both are written in one unit).
 */
export const pipelineSteps = sqlInvariant({
  name: "pipeline-steps",
  description: "The steps table agrees with the executions: each recorded step names the operation its executions ran, and has one.",
  checked: `SELECT (SELECT COUNT(*) FROM "Execution" WHERE "pipeline" IS NOT NULL AND "step" IS NOT NULL) + (SELECT COUNT(*) FROM "PipelineStep") AS "n"`,
  violations: [
    `SELECT x."runId" AS "subject", 'step ' || x."pipeline" || '#' || ${text(`x."step"`)} || ' is not in the steps table' AS "detail"
       FROM "Execution" x WHERE x."pipeline" IS NOT NULL AND x."step" IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM "PipelineStep" s WHERE s."pipeline" = x."pipeline" AND s."step" = x."step")`,
    `SELECT x."runId" AS "subject", 'ran ' || x."operationId" || ' as step ' || x."pipeline" || '#' || ${text(`x."step"`)} || ', which the steps table gives to ' || s."operationId" AS "detail"
       FROM "Execution" x JOIN "PipelineStep" s ON s."pipeline" = x."pipeline" AND s."step" = x."step" WHERE s."operationId" <> x."operationId"`,
    `SELECT s."pipeline" || '#' || ${text(`s."step"`)} AS "subject", 'no execution ran this step' AS "detail"
       FROM "PipelineStep" s WHERE NOT EXISTS (SELECT 1 FROM "Execution" x WHERE x."pipeline" = s."pipeline" AND x."step" = s."step")`,
  ].join(" UNION ALL "),
});

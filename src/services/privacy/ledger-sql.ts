import type { DatabaseProvider } from "../../db/database-url";
import { placeholders, type Statement } from "../../db/sql-statement";

/**
 * The statements of a debit (docs: "Differential-privacy budgets"), portable between SQLite and
 * PostgreSQL like the closures (../lineage/closure-sql.ts).
 *
 * protectedDatasetsStatement: for each release, every protected dataset it reads, directly or
 * through lineage — one recursive statement: the backward closure along wasDerivedFrom from the
 * release's inputs (each input its own start; UNION keeps the walk finite on cycles), the artifacts
 * it reaches that are versions of a dataset with a budget. Seeds are (run, input) pairs.
 *
 * lockBudgetsStatement: those budgets' rows, read in one order (namespace, then name) — on
 * PostgreSQL locked FOR UPDATE, so concurrent releases (over any number of instances) queue on the
 * rows they share and each reads what the one before it left; SQLite has one writer.
 */
export function protectedDatasetsStatement(provider: DatabaseProvider, seeds: readonly { runId: string; artifactId: string }[]): Statement {
  const { params, bind } = placeholders(provider);
  const values = seeds.length > 0 ? seeds.map((s) => `(${bind(s.runId)}, ${bind(s.artifactId)})`).join(", ") : `(${bind("")}, ${bind("")})`;
  let sql = `WITH RECURSIVE up(run, id) AS (SELECT v.column1, v.column2 FROM (VALUES ${values}) v`;
  sql +=
    provider === "sqlite"
      ? ` UNION SELECT up.run, p."sourceId" FROM up JOIN "ProvenanceEdge" p ON p."targetId" = up.id)`
      : // The LATERAL fence: one probe of the edge index per walked row (as in the closures).
        ` UNION SELECT up.run, s.id FROM up CROSS JOIN LATERAL (SELECT p."sourceId" AS id FROM "ProvenanceEdge" p WHERE p."targetId" = up.id OFFSET 0) s)`;
  sql += ` SELECT DISTINCT up.run AS "runId", b.namespace AS namespace, b.name AS name FROM up JOIN "Artifact" a ON a.id = up.id`;
  sql += ` JOIN "PrivacyBudget" b ON b.namespace = a."datasetNamespace" AND b.name = a."datasetName" ORDER BY 1, 2, 3`;
  return { sql, params };
}

export function lockBudgetsStatement(provider: DatabaseProvider, datasets: readonly { namespace: string; name: string }[]): Statement {
  const { params, bind } = placeholders(provider);
  const keys = datasets.map((d) => `(${bind(d.namespace)}, ${bind(d.name)})`).join(", ");
  // bounded: the datasets that declared a budget (one admin-declared row each) that one unit's releases reach
  const sql =
    // Amounts as text: exact past 2^53 whatever the driver does with 64-bit integers.
    `SELECT namespace, name, ${["epsilonTotal", "deltaTotal", "perReleaseEpsilon", "epsilonSpent", "deltaSpent"].map((c) => `CAST("${c}" AS TEXT) AS "${c}"`).join(", ")}, accounting FROM "PrivacyBudget" ` +
    `WHERE (namespace, name) IN (${keys || `(${bind("")}, ${bind("")})`}) ORDER BY namespace, name${provider === "postgres" ? " FOR UPDATE" : ""}`;
  return { sql, params };
}

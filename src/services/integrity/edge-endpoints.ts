import { sqlInvariant, text } from "./sql-invariant";

/** Edges carry no foreign keys (they are bulk-written after their artifacts): both ends must still be stored artifacts. */
export const edgeEndpoints = sqlInvariant({
  name: "edge-endpoints",
  description: "Every edge's source and target artifacts exist.",
  checked: `SELECT COUNT(*) AS "n" FROM "ProvenanceEdge"`,
  violations: [
    `SELECT 'edge ' || ${text(`e."id"`)} AS "subject", 'source ' || e."sourceId" || ' is not a stored artifact' AS "detail"
       FROM "ProvenanceEdge" e WHERE NOT EXISTS (SELECT 1 FROM "Artifact" a WHERE a."id" = e."sourceId")`,
    `SELECT 'edge ' || ${text(`e."id"`)} AS "subject", 'target ' || e."targetId" || ' is not a stored artifact' AS "detail"
       FROM "ProvenanceEdge" e WHERE NOT EXISTS (SELECT 1 FROM "Artifact" a WHERE a."id" = e."targetId")`,
  ].join(" UNION ALL "),
});

import { sqlInvariant, text } from "./sql-invariant";

/** Edges denormalize their ends' artifact types (type-filtered closures read them from the index alone): they must agree. */
export const edgeTypes = sqlInvariant({
  name: "edge-types",
  description: "Every edge's sourceType and targetType equal its artifacts' types.",
  checked: `SELECT COUNT(*) AS "n" FROM "ProvenanceEdge"`,
  violations: [
    `SELECT 'edge ' || ${text(`e."id"`)} AS "subject", 'sourceType ''' || e."sourceType" || ''' but ' || a."id" || ' is a ''' || a."artifactType" || '''' AS "detail"
       FROM "ProvenanceEdge" e JOIN "Artifact" a ON a."id" = e."sourceId" WHERE a."artifactType" <> e."sourceType"`,
    `SELECT 'edge ' || ${text(`e."id"`)} AS "subject", 'targetType ''' || e."targetType" || ''' but ' || a."id" || ' is a ''' || a."artifactType" || '''' AS "detail"
       FROM "ProvenanceEdge" e JOIN "Artifact" a ON a."id" = e."targetId" WHERE a."artifactType" <> e."targetType"`,
  ].join(" UNION ALL "),
});

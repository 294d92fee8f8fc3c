import type { LineageNode, PropagatePlugin, WrittenLineage } from "../types";

/**
 * Policy-tag propagation ("Policy travels along the same edges"): a tag on a column reaches every
 * column whose lineage touches it, along DIRECT and INDIRECT column edges, and a tag on an artifact
 * every artifact derived from it, along wasDerivedFrom edges; where a run reported no column
 * lineage for an output (an opaque step), the output as a whole takes every tag of its inputs —
 * at write time for new lineage, and as a backfill when a tag is assigned later (the admin
 * mutations and OpenLineage's tags facet record assignments in a unit; this stage then lets them
 * flow). A new version of a dataset takes the tags assigned to its dataset's columns. Each holding
 * keeps its nearest origin and the path length. A downgraded node is a barrier for its tag: the
 * tag is not given to it again, and does not flow on through it, while nodes reached by other
 * paths keep it.
 *
 * The walks run in the database through the DerivationPort (one recursive statement per hop set);
 * what this plugin decides is where they start.
 */
export const policyTagPropagation: PropagatePlugin = {
  name: "policy-tags",
  stage: "propagate",
  async propagate(written, { derive }) {
    const from = nearEnds(written);
    const rederive = [...new Set(written.downgradedTags)];
    const origins = [...new Set(written.assignedTags)];
    const versions = [...new Set(written.datasetVersions)];
    if (from.length + rederive.length + origins.length + versions.length === 0) return;
    await derive.policyTags.flow({ rederive, origins, versions, from });
  },
};

/**
 * Where tags may flow from after new lineage: the source artifact of each wasDerivedFrom edge (every
 * holding on it: its own flow along the edge, its columns' and version's through an opaque step),
 * the source column of each column edge, and that column's version as a whole (which reaches every
 * column of it). Each node once, in the order first met.
 */
export function nearEnds(written: WrittenLineage): LineageNode[] {
  const nodes = new Map<string, LineageNode>();
  // A joined key, not JSON.stringify of the node: a join's 20,000 edges, several times cheaper.
  const add = (node: LineageNode) => nodes.set(`${node.kind}\u0000${node.artifactId}\u0000${node.kind === "COLUMN" ? node.field : ""}`, node);
  for (const edge of written.artifactEdges) add({ kind: "ARTIFACT", artifactId: edge.sourceId });
  for (const edge of written.columnEdges) {
    add({ kind: "COLUMN", artifactId: edge.sourceId, field: edge.sourceField });
    add({ kind: "VERSION", artifactId: edge.sourceId });
  }
  return [...nodes.values()];
}

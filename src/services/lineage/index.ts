// The lineage room's one door: artifact provenance on the read side (one-hop edges, closures,
// provenance maps, PROV-JSON). Other rooms import from here, not from the files behind it.
export { createLineageServices, type LineageServices } from "./lineage-services";
export { type Closure, type ClosureEdge, type ClosureNode, type ClosureQuery, type ClosureReader, DEFAULT_CLOSURE_NODES, MAX_CLOSURE_NODES } from "./closure";
export {
  type DerivationRecord,
  derivationsOf,
  farEndOf,
  LINEAGE_DIRECTIONS,
  type LineageDirection,
  PROVENANCE_EDGE_KINDS,
  type ProvenanceEdgeKind,
  type ProvenanceEdgeRecord,
  toProvenanceEdgeRecord,
} from "./lineage-records";
export type { ProvenanceMapEntry } from "./provenance-map";
export { agentQualifiedId, PROV_JSON_PREFIXES, type ProvJsonDocument, qualifiedId } from "./prov-json";
export { lineageReads } from "./heavy-reads";

import { inChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import { PROV_JSON_PREFIXES, qualifiedId } from "../lineage";
import { toArtifactRecord } from "../records";
import type { ColumnClosure } from "./column-closure";
import { type ColumnRef, columnKey } from "./column-records";

type Attributes = Record<string, unknown>;

export interface ColumnProvJsonDocument {
  prefix: Record<string, string>;
  entity: Record<string, Attributes>;
  activity: Record<string, Attributes>;
  hadMember: Record<string, Attributes>;
  wasDerivedFrom: Record<string, Attributes>;
}

/**
 * A column's key: the dataset version's id and the field, %-encoded beyond letters, digits, _ and -
 * (so different fields never share a key): provgraph:art_…/col_<field>.
 */
export function columnQualifiedId(ref: { artifactId: string; field: string }): string {
  const local = [...Buffer.from(ref.field, "utf8")]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9_-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");
  return `${qualifiedId(ref.artifactId)}/col_${local}`;
}

/**
 * A column closure as W3C PROV-JSON: each column an entity, a member (prov:hadMember) of its dataset
 * version's entity (provgraph:art_…, as in the artifact export); each column edge a wasDerivedFrom
 * (generated: the output column, or the version itself for a dataset-wide edge; used: the input
 * column) with its run as prov:activity and provgraph:type / subtype / description / masking.
 */
export class ColumnProvJsonExporter {
  constructor(private readonly db: Db) {}

  async export(closure: ColumnClosure): Promise<ColumnProvJsonDocument> {
    const refs: (ColumnRef & { depth?: number })[] = [closure.root, ...closure.nodes];
    for (const e of closure.edges) refs.push({ artifactId: e.sourceId, field: e.sourceField }, { artifactId: e.targetId, field: e.targetField });
    const artifactIds = [...new Set(refs.map((r) => r.artifactId as string))].sort();
    const runIds = [...new Set(closure.edges.map((e) => e.runId as string))].sort();
    const [artifacts, executions] = await Promise.all([
      inChunks(artifactIds, (chunk) => this.db.artifact.findMany({ where: { id: { in: chunk } } })),
      // Sorted chunks of sorted ids: the rows come in runId order.
      inChunks(runIds, (chunk) => this.db.execution.findMany({ where: { runId: { in: chunk } }, include: { operation: true }, orderBy: { runId: "asc" } })),
    ]);
    const doc: ColumnProvJsonDocument = { prefix: { ...PROV_JSON_PREFIXES }, entity: {}, activity: {}, hadMember: {}, wasDerivedFrom: {} };
    const records = new Map(artifacts.map((row) => [row.id, toArtifactRecord(row)]));
    for (const id of artifactIds) {
      const record = records.get(id);
      doc.entity[qualifiedId(id)] = record
        ? {
            "prov:type": "prov:Collection",
            "prov:label": record.originalName,
            "provgraph:artifactType": record.artifactType,
            ...(record.dataset ? { "provgraph:datasetNamespace": record.dataset.namespace, "provgraph:datasetName": record.dataset.name, ...(record.dataset.version !== null ? { "provgraph:datasetVersion": record.dataset.version } : {}) } : {}),
          }
        : { "prov:type": "prov:Collection" };
    }
    const depths = new Map<string, number>([[columnKey(closure.root), 0], ...closure.nodes.map((n) => [columnKey(n), n.depth] as [string, number])]);
    let members = 0;
    const seen = new Set<string>();
    for (const ref of refs) {
      if (ref.field === null || seen.has(columnKey(ref))) continue;
      seen.add(columnKey(ref));
      const id = columnQualifiedId({ artifactId: ref.artifactId, field: ref.field });
      const dataset = records.get(ref.artifactId)?.dataset;
      doc.entity[id] = {
        "prov:label": dataset ? `${dataset.name}.${ref.field}` : ref.field,
        "provgraph:field": ref.field,
        "provgraph:columnOf": qualifiedId(ref.artifactId),
        ...(depths.has(columnKey(ref)) ? { "provgraph:depth": depths.get(columnKey(ref)) } : {}),
        ...(columnKey(ref) === columnKey(closure.root) ? { "provgraph:closureRoot": true, "provgraph:closureDirection": closure.direction, ...(closure.truncated ? { "provgraph:closureTruncated": true } : {}) } : {}),
      };
      doc.hadMember[`_:member${++members}`] = { "prov:collection": qualifiedId(ref.artifactId), "prov:entity": id };
    }
    for (const execution of executions) {
      doc.activity[qualifiedId(execution.runId)] = {
        ...(execution.startedAt ? { "prov:startTime": execution.startedAt.toISOString() } : {}),
        ...(execution.endedAt ? { "prov:endTime": execution.endedAt.toISOString() } : {}),
        "prov:label": `${execution.operation.name}@${execution.operation.version}`,
        "provgraph:status": execution.status,
      };
    }
    closure.edges.forEach((edge, i) => {
      doc.wasDerivedFrom[`_:columnDerivation${i + 1}`] = {
        "prov:generatedEntity": edge.targetField === null ? qualifiedId(edge.targetId) : columnQualifiedId({ artifactId: edge.targetId, field: edge.targetField }),
        "prov:usedEntity": columnQualifiedId({ artifactId: edge.sourceId, field: edge.sourceField }),
        "prov:activity": qualifiedId(edge.runId),
        "provgraph:type": edge.type,
        ...(edge.subtype !== null ? { "provgraph:subtype": edge.subtype } : {}),
        ...(edge.description !== null ? { "provgraph:description": edge.description } : {}),
        "provgraph:masking": edge.masking,
        ...(edge.targetField === null ? { "provgraph:datasetWide": true } : {}),
      };
    });
    return doc;
  }
}


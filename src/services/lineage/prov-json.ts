import { inChunks } from "../../db/chunked-lists";
import type { Db } from "../../db/client";
import type { Closure, ClosureQuery, ClosureReader } from "./closure";
import type { ArtifactRecord } from "../records";

/**
 * W3C PROV-JSON export of a closure (https://www.w3.org/submissions/prov-json/): artifacts are
 * entities, the executions that used or produced them are activities, Execution.agent names the
 * agents (wasAssociatedWith their activities, and wasAttributedTo by what those generated), and the
 * closure's edges are wasDerivedFrom. Every provgraph id keeps its own spelling
 * under the `provgraph:` prefix (provgraph:art_…, provgraph:run_…), so a document's ids can be fed
 * straight back to the API.
 */
export const PROVGRAPH_NAMESPACE = "urn:provgraph:";

export const PROV_JSON_PREFIXES = {
  prov: "http://www.w3.org/ns/prov#",
  xsd: "http://www.w3.org/2001/XMLSchema#",
  provgraph: PROVGRAPH_NAMESPACE,
} as const;

type Attributes = Record<string, unknown>;

export interface ProvJsonDocument {
  prefix: Record<string, string>;
  entity: Record<string, Attributes>;
  activity: Record<string, Attributes>;
  agent: Record<string, Attributes>;
  used: Record<string, Attributes>;
  wasGeneratedBy: Record<string, Attributes>;
  wasDerivedFrom: Record<string, Attributes>;
  wasAssociatedWith: Record<string, Attributes>;
  wasAttributedTo: Record<string, Attributes>;
}

export const qualifiedId = (id: string): string => `provgraph:${id}`;

/**
 * An agent's key: a function of its name alone, so the same agent has the same key in every export
 * (documents merge). Names are free text; the local part keeps letters, digits, _ and -, and
 * %-encodes the rest (UTF-8), so different names never share a key (names with lone surrogates, the
 * one string UTF-8 cannot tell apart, are refused when recorded).
 */
export function agentQualifiedId(agent: string): string {
  const local = [...Buffer.from(agent, "utf8")]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9_-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");
  return `provgraph:agent_${local}`;
}

const dateTime = (date: Date) => ({ $: date.toISOString(), type: "xsd:dateTime" });

export class ProvJsonExporter {
  constructor(
    private readonly db: Db,
    private readonly closures: ClosureReader,
  ) {}

  async export(query: ClosureQuery): Promise<ProvJsonDocument> {
    const closure = await this.closures.closure({ ...query, withArtifacts: true, edgeDetails: true });
    const members = [closure.rootId, ...closure.nodes.map((node) => node.artifactId)];
    const order = ["runId", "direction", "role", "position", "artifactId"] as const;
    const links = (
      await inChunks(members, (chunk) =>
        this.db.executionArtifact.findMany({ where: { artifactId: { in: chunk } }, orderBy: order.map((column) => ({ [column]: "asc" as const })) }),
      )
    ).sort((a, b) => {
      // The chunks' rows, in the one order the document lists them.
      for (const column of order) if (a[column] !== b[column]) return a[column] < b[column] ? -1 : 1;
      return 0;
    });
    const runIds = [...new Set([...links.map((link) => link.runId), ...closure.edges.map((edge) => edge.record!.runId)])].sort();
    // Sorted chunks of sorted ids: the rows come in runId order.
    const executions = await inChunks(runIds, (chunk) => this.db.execution.findMany({ where: { runId: { in: chunk } }, include: { operation: true }, orderBy: { runId: "asc" } }));
    return provJsonDocument(closure, links, executions);
  }
}

interface LinkRow {
  runId: string;
  artifactId: string;
  direction: string;
  role: string;
  position: number;
}

interface ExecutionRow {
  runId: string;
  specId: string;
  status: string;
  agent: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  recordedAt: Date;
  pipeline: string | null;
  step: number | null;
  operation: { name: string; version: string };
}

/** Builds the document; relations are numbered in a stable order (links by run, role, position; derivations by edge id). */
export function provJsonDocument(closure: Closure, links: readonly LinkRow[], executions: readonly ExecutionRow[]): ProvJsonDocument {
  const doc: ProvJsonDocument = {
    prefix: { ...PROV_JSON_PREFIXES },
    entity: {},
    activity: {},
    agent: {},
    used: {},
    wasGeneratedBy: {},
    wasDerivedFrom: {},
    wasAssociatedWith: {},
    wasAttributedTo: {},
  };
  const root = closure.artifacts.get(closure.rootId);
  doc.entity[qualifiedId(closure.rootId)] = {
    ...entityAttributes(root, null),
    "provgraph:closureRoot": true,
    "provgraph:closureDirection": closure.direction,
    ...(closure.truncated ? { "provgraph:closureTruncated": true } : {}),
  };
  for (const node of closure.nodes) {
    doc.entity[qualifiedId(node.artifactId)] = {
      ...entityAttributes(closure.artifacts.get(node.artifactId), node.artifactType),
      "provgraph:depth": node.depth,
    };
  }

  let associations = 0;
  for (const execution of executions) {
    const id = qualifiedId(execution.runId);
    doc.activity[id] = {
      ...(execution.startedAt ? { "prov:startTime": execution.startedAt.toISOString() } : {}),
      ...(execution.endedAt ? { "prov:endTime": execution.endedAt.toISOString() } : {}),
      "prov:label": `${execution.operation.name}@${execution.operation.version}`,
      "provgraph:operation": execution.operation.name,
      "provgraph:operationVersion": execution.operation.version,
      "provgraph:specId": execution.specId,
      "provgraph:status": execution.status,
      "provgraph:recordedAt": dateTime(execution.recordedAt),
      ...(execution.pipeline !== null ? { "provgraph:pipeline": execution.pipeline } : {}),
      ...(execution.step !== null ? { "provgraph:step": execution.step } : {}),
    };
    if (execution.agent !== null) {
      const agentId = agentQualifiedId(execution.agent);
      doc.agent[agentId] ??= { "prov:label": execution.agent };
      doc.wasAssociatedWith[`_:assoc${++associations}`] = { "prov:activity": id, "prov:agent": agentId };
    }
  }
  doc.agent = Object.fromEntries(Object.entries(doc.agent).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

  const agentOf = new Map(executions.map((execution) => [execution.runId, execution.agent]));
  const attributed = new Set<string>();
  let usages = 0;
  let generations = 0;
  let attributions = 0;
  for (const link of links) {
    const activity = qualifiedId(link.runId);
    const entity = qualifiedId(link.artifactId);
    if (link.direction === "CONSUMED") {
      doc.used[`_:use${++usages}`] = { "prov:activity": activity, "prov:entity": entity, "prov:role": link.role };
      continue;
    }
    doc.wasGeneratedBy[`_:gen${++generations}`] = { "prov:entity": entity, "prov:activity": activity, "prov:role": link.role };
    // PROV: an entity generated by an activity is attributed to the agent associated with it.
    const agent = agentOf.get(link.runId);
    if (agent == null) continue;
    const agentId = agentQualifiedId(agent);
    if (attributed.has(`${entity} ${agentId}`)) continue;
    attributed.add(`${entity} ${agentId}`);
    doc.wasAttributedTo[`_:attr${++attributions}`] = { "prov:entity": entity, "prov:agent": agentId };
  }

  closure.edges.forEach(({ record: edge }, i) => {
    if (!edge) throw new Error("provJsonDocument needs a closure read with edge details");
    doc.wasDerivedFrom[`_:derivation${i + 1}`] = {
      "prov:generatedEntity": qualifiedId(edge.targetId),
      "prov:usedEntity": qualifiedId(edge.sourceId),
      "prov:activity": qualifiedId(edge.runId),
      "provgraph:kind": edge.kind,
      ...(edge.groupId !== null ? { "provgraph:groupId": edge.groupId } : {}),
      "provgraph:stepBoundary": edge.stepBoundary,
    };
  });
  return doc;
}

function entityAttributes(record: ArtifactRecord | undefined, edgeType: string | null): Attributes {
  if (!record) return { "provgraph:artifactType": edgeType };
  return {
    "prov:label": record.originalName,
    "provgraph:artifactType": record.artifactType,
    "provgraph:contentHash": record.contentHash,
    "provgraph:createdAt": dateTime(record.createdAt),
    ...(record.dataset
      ? {
          "provgraph:datasetNamespace": record.dataset.namespace,
          "provgraph:datasetName": record.dataset.name,
          ...(record.dataset.version !== null ? { "provgraph:datasetVersion": record.dataset.version } : {}),
        }
      : {}),
  };
}

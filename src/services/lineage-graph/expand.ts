import { InvalidCursorError, NotFoundError } from "../errors";
import { decodeCursor, encodeCursor } from "../pagination";
import { columnsOfGraph } from "./column-graph";
import { checkCount, MAX_EXPAND_PAGE } from "./graph-limits";
import { columnNodeId, type GraphNodeRef, parseGraphNodeId } from "./graph-node-ids";
import { type GraphDirection, graphEdgeId, type LineageGraphEdgeRecord, type LineageGraphNodeRecord } from "./graph-records";
import { countHidden, emptyEdge } from "./lineage-graph";
import { columnEdgeConditions, edgeConditions, type LineageFilters, linkConditions } from "./lineage-filters";
import { compareIds } from "./neighbourhood";
import { ARTIFACT_SIDES, neighboursOf, type NeighbourSide, RUN_SIDES } from "./neighbour-sql";
import { readNodeDetails } from "./node-details";
import { asText, byOtherIndex, type GraphReadContext, rowObjects, StatementParams } from "./read-client";
import { appendTo } from "../grouping";

export interface ExpandArgs {
  nodeId: string;
  direction: GraphDirection;
  first: number;
  after: string | null;
  asOf: Date | null;
  stepBoundaryOnly: boolean;
  columns: boolean;
}

export interface ExpandPageRecord {
  node: LineageGraphNodeRecord;
  nodes: LineageGraphNodeRecord[];
  edges: LineageGraphEdgeRecord[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

type Side = "up" | "down";

/** One entry of the page: a neighbour (or, for a run's inputs, a co-input group), keyed for the cursor. */
interface Entry {
  side: Side;
  key: string;
  members: string[];
}

/**
 * One page of one node's direct neighbours (docs: "Lineage and graphs"): an artifact's producing
 * runs (UPSTREAM) or consuming runs (DOWNSTREAM), a run's inputs or outputs, a column's column
 * neighbours; BOTH pages the upstream ones, then the downstream ones. Neighbours come in id order,
 * each exactly once over the pages, `first` at a time; a cursor names the last one of a page.
 * Co-input groups are never split: a run's inputs page by group (the inputs one derivation used
 * together, joined when they share an input), and a run on an artifact's downstream page brings the
 * co-inputs the artifact was used with. Depths are relative to the expanded node (−1 upstream, +1
 * downstream, 0 for co-inputs); the expanded node's hidden counts say how many neighbours on each
 * side come after this page. Two statements per page (three with `columns`).
 */
export async function expandNode(args: ExpandArgs, { reader }: GraphReadContext): Promise<ExpandPageRecord> {
  const ref = parseGraphNodeId("nodeId", args.nodeId);
  checkCount("first", args.first, MAX_EXPAND_PAGE);
  const connection = `expand:${ref.id}`;
  let after: { side: Side; key: string } | null = null;
  if (args.after !== null) {
    const key = decodeCursor(connection, "after", args.after, (k) => /^(up|down):./.test(k));
    after = { side: key.slice(0, key.indexOf(":")) as Side, key: key.slice(key.indexOf(":") + 1) };
    if ((after.side === "up" && args.direction === "DOWNSTREAM") || (after.side === "down" && args.direction === "UPSTREAM")) throw new InvalidCursorError("after", args.after);
  }
  const sides: Side[] = args.direction === "BOTH" ? ["up", "down"] : args.direction === "UPSTREAM" ? ["up"] : ["down"];
  const wanted = sides.filter((side) => !(after?.side === "down" && side === "up"));
  const filters: LineageFilters = { asOf: args.asOf, stepBoundaryOnly: args.stepBoundaryOnly };

  const read = await readEntries(reader, ref, wanted, after, args.first, filters);
  if (!read.exists) throw new NotFoundError(ref.kind === "RUN" ? "run" : ref.kind === "COLUMN" ? "column" : "artifact", ref.id, "nodeId");
  const entries = read.entries;
  const page: Entry[] = [];
  let size = 0;
  for (const entry of entries) {
    // At least one entry per page, whole; then as many as fit in `first`.
    if (page.length > 0 && size + entry.members.length > args.first) break;
    if (args.first === 0) break;
    page.push(entry);
    size += entry.members.length;
  }
  const hasNextPage = page.length < entries.length;
  const shown = page.flatMap((entry) => entry.members);
  const downRuns = new Set(page.filter((entry) => entry.side === "down").flatMap((entry) => entry.members));
  const coInputs = ref.kind === "ARTIFACT" ? read.coInputs.filter(([runId]) => downRuns.has(runId)) : [];
  const details = await readNodeDetails(reader, [ref.id, ...shown, ...coInputs.map(([, id]) => id)], filters);
  const node = details.get(ref.id)!;
  const nodes = new Map<string, LineageGraphNodeRecord>();
  for (const entry of page) for (const id of entry.members) if (details.has(id) && !nodes.has(id)) nodes.set(id, { ...details.get(id)!, depth: entry.side === "up" ? -1 : 1 });
  for (const [, id] of coInputs) if (details.has(id) && !nodes.has(id) && id !== ref.id) nodes.set(id, { ...details.get(id)!, depth: 0 });

  const edges: LineageGraphEdgeRecord[] = [];
  for (const entry of page) {
    for (const id of entry.members) {
      if (ref.kind === "COLUMN") {
        const [source, target] = entry.side === "up" ? [id, ref.id] : [ref.id, id];
        for (const e of read.columnEdges.get(`${entry.side}\u0000${id}`) ?? []) edges.push({ ...emptyEdge(e.id, e.kind, source, target), runId: e.runId, subtype: e.subtype, masking: e.masking });
        continue;
      }
      const [artifactId, runId] = ref.kind === "ARTIFACT" ? [ref.id, id] : [id, ref.id];
      const kind = (ref.kind === "ARTIFACT") === (entry.side === "up") ? "GENERATED" : "USED";
      for (const role of read.roles.get(`${entry.side}\u0000${id}`) ?? [null]) edges.push(linkEdge(kind, runId, artifactId, role));
    }
  }
  // A set of the ids drawn so far: a run may have tens of thousands of co-inputs (a join of 20,000 parts).
  const drawn = new Set(edges.map((edge) => edge.id));
  for (const [runId, id, role] of coInputs) {
    const edge = linkEdge("USED", runId, id, role);
    if (nodes.has(id) && !drawn.has(edge.id)) {
      drawn.add(edge.id);
      edges.push(edge);
    }
  }
  const all = new Map([[node.id, node], ...nodes]);
  countHidden(all, edges);
  if (ref.kind === "COLUMN") for (const n of all.values()) countColumnPage(n, edges);
  // The expanded node: neighbours still to page on each side (all of a side this direction does not page).
  const last = page.at(-1);
  const remaining = (side: Side, count: number) => {
    if (!sides.includes(side)) return count;
    if (side === "up" && after?.side === "down") return 0;
    const shownHere = page.filter((entry) => entry.side === side).reduce((n, entry) => n + entry.members.length, 0);
    return Math.max(0, count - (read.before.get(side) ?? 0) - shownHere);
  };
  node.hiddenUpstream = remaining("up", node.upstreamCount);
  node.hiddenDownstream = remaining("down", node.downstreamCount);

  let pageNodes = [...nodes.values()];
  if (args.columns) {
    const columns = await columnsOfGraph(reader, { nodes: pageNodes, filters });
    pageNodes = [...pageNodes, ...columns.nodes];
    edges.push(...columns.edges);
  }
  const cursor = (entry: Entry) => encodeCursor(connection, `${entry.side}:${entry.key}`);
  return {
    node,
    nodes: pageNodes,
    edges,
    pageInfo: { hasNextPage, hasPreviousPage: after !== null, startCursor: page.length > 0 ? cursor(page[0]) : null, endCursor: last ? cursor(last) : null },
  };
}

function linkEdge(kind: "USED" | "GENERATED", runId: string, artifactId: string, role: string | null): LineageGraphEdgeRecord {
  const [source, target] = kind === "USED" ? [artifactId, runId] : [runId, artifactId];
  return { ...emptyEdge(kind === "USED" ? graphEdgeId.used(artifactId, runId, role) : graphEdgeId.generated(runId, artifactId, role), kind, source, target), runId, role };
}

/** Column nodes on a page: each drawn column edge shows one neighbour. */
function countColumnPage(node: LineageGraphNodeRecord, edges: readonly LineageGraphEdgeRecord[]): void {
  if (node.kind !== "COLUMN") return;
  const up = new Set(edges.filter((e) => e.target === node.id).map((e) => e.source));
  const down = new Set(edges.filter((e) => e.source === node.id).map((e) => e.target));
  node.hiddenUpstream = Math.max(0, node.upstreamCount - up.size);
  node.hiddenDownstream = Math.max(0, node.downstreamCount - down.size);
}

interface ReadEntries {
  exists: boolean;
  entries: Entry[];
  /** Per side: neighbours up to and including the last one read before this page's first (paged already). */
  before: Map<Side, number>;
  /** `${side}\u0000${neighbour}` → roles of the links to it (null: a derivation edge says so, no link). */
  roles: Map<string, (string | null)[]>;
  /** ARTIFACT downstream: [run, co-input, role] for the runs read. */
  coInputs: [string, string, string | null][];
  columnEdges: Map<string, { id: string; kind: "COLUMN_DIRECT" | "COLUMN_INDIRECT"; runId: string; subtype: string | null; masking: boolean }[]>;
}

/** PostgreSQL compares text by its collation; ids page in code-unit order on both databases. */
const collate = (provider: string) => (provider === "postgres" ? ` COLLATE "C"` : "");

async function readEntries(reader: GraphReadContext["reader"], ref: GraphNodeRef, sides: Side[], after: { side: Side; key: string } | null, first: number, f: LineageFilters): Promise<ReadEntries> {
  const p = new StatementParams(reader.provider);
  const c = collate(reader.provider);
  const result: ReadEntries = { exists: false, entries: [], before: new Map(), roles: new Map(), coInputs: [], columnEdges: new Map() };
  // The node's id (and field) once, as a one-row table every part reads: placeholders are positional on
  // SQLite, so the SQL is built strictly left to right and no bound value is used twice.
  let sql = `WITH me(node, field) AS (SELECT CAST(${p.bind(ref.kind === "COLUMN" ? ref.artifactId : ref.id)} AS TEXT), CAST(${p.bind(ref.kind === "COLUMN" ? ref.field : null)} AS TEXT)) `;
  const node = "(SELECT node FROM me)";
  const field = "(SELECT field FROM me)";
  const head = `'exists' AS row, NULL AS side, NULL AS nb, NULL AS nbfield, NULL AS role, NULL AS kind, NULL AS runid, NULL AS subtype, CAST(NULL AS BOOLEAN) AS masking, CAST(NULL AS BIGINT) AS n`;
  if (ref.kind === "COLUMN") {
    sql +=
      `SELECT ${head} WHERE EXISTS (SELECT 1 FROM "DatasetColumn" d WHERE d."artifactId" = ${node} AND d.field = ${field}) ` +
      `OR EXISTS (SELECT 1 FROM "ColumnEdge" e WHERE (e."sourceId" = ${node} AND e."sourceField" = ${field}) OR (e."targetId" = ${node} AND e."targetField" = ${field}))`;
    for (const side of sides) {
      const [a, fl] = after?.side === side ? splitColumnKey(after.key) : [null, null];
      // After the cursor's (version, field), in code-unit order (a whole version sorts as field '').
      const beyond = () => `(nbs.nb${c} > ${p.bind(a)}${c} OR (nbs.nb = ${p.bind(a)} AND COALESCE(nbs.nbfield, '')${c} > ${p.bind(fl ?? "")}${c}))`;
      const pairsOf = () =>
        side === "up"
          ? `SELECT DISTINCT e."sourceId" AS nb, e."sourceField" AS nbfield FROM "ColumnEdge" e WHERE e."targetId" = ${node} AND (e."targetField" = ${field} OR e."targetField" IS NULL)${columnEdgeConditions(p, f, "e")}`
          : `SELECT DISTINCT e."targetId" AS nb, e."targetField" AS nbfield FROM "ColumnEdge" e WHERE e."sourceId" = ${node} AND e."sourceField" = ${field}${columnEdgeConditions(p, f, "e")}`;
      sql += ` UNION ALL SELECT * FROM (SELECT 'nb' AS row, '${side}' AS side, nbs.nb, nbs.nbfield, NULL AS role, NULL AS kind, NULL AS runid, NULL AS subtype, CAST(NULL AS BOOLEAN) AS masking, CAST(NULL AS BIGINT) AS n FROM (${pairsOf()}) nbs`;
      sql += ` WHERE ${a === null ? "1 = 1" : beyond()} ORDER BY nbs.nb${c}, COALESCE(nbs.nbfield, '')${c} LIMIT ${first + 1}) q${side}`;
      if (a !== null) sql += ` UNION ALL SELECT 'before', '${side}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, (SELECT COUNT(*) FROM (${pairsOf()}) nbs WHERE NOT ${beyond()})`;
      const [nb, nbfield] = side === "up" ? [`e."sourceId"`, `e."sourceField"`] : [`e."targetId"`, `e."targetField"`];
      sql += ` UNION ALL SELECT 'edge', '${side}', ${nb}, ${nbfield}, NULL, e.type, e."runId", e.subtype, e.masking, e.id FROM "ColumnEdge" e WHERE `;
      sql += side === "up" ? `e."targetId" = ${node} AND (e."targetField" = ${field} OR e."targetField" IS NULL)` : `e."sourceId" = ${node} AND e."sourceField" = ${field}`;
      sql += columnEdgeConditions(p, f, "e");
    }
  } else {
    sql += `SELECT ${head} FROM ${ref.kind === "ARTIFACT" ? `"Artifact" WHERE id = ${node}` : `"Execution" WHERE "runId" = ${node}`}`;
    for (const side of sides) {
      const neighbourSide: NeighbourSide = ref.kind === "ARTIFACT" ? ARTIFACT_SIDES[side] : RUN_SIDES[side];
      // A run's inputs are read whole (their groups decide the pages); other sides one page at a time.
      const groups = ref.kind === "RUN" && side === "up";
      const paged = after?.side === side && !groups;
      sql += ` UNION ALL SELECT * FROM (SELECT 'nb' AS row, '${side}' AS side, nbs.nb, NULL AS nbfield, NULL AS role, NULL AS kind, NULL AS runid, NULL AS subtype, CAST(NULL AS BOOLEAN) AS masking, CAST(NULL AS BIGINT) AS n`;
      sql += ` FROM (${neighboursOf(p, f, neighbourSide, node)}) nbs WHERE ${paged ? `nbs.nb${c} > ${p.bind(after!.key)}${c}` : "1 = 1"}`;
      sql += `${groups ? "" : ` ORDER BY nbs.nb${c} LIMIT ${first + 1}`}) q${side}`;
      if (paged) {
        sql += ` UNION ALL SELECT 'before', '${side}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, (SELECT COUNT(*) FROM (${neighboursOf(p, f, neighbourSide, node)}) nbs`;
        sql += ` WHERE nbs.nb${c} <= ${p.bind(after!.key)}${c})`;
      }
      // The roles of the links to them.
      const [nodeColumn, nbColumn, direction] =
        ref.kind === "ARTIFACT" ? ["artifactId", "runId", side === "up" ? "PRODUCED" : "CONSUMED"] : ["runId", "artifactId", side === "up" ? "CONSUMED" : "PRODUCED"];
      sql += ` UNION ALL SELECT 'role', '${side}', l."${nbColumn}", NULL, l.role, NULL, NULL, NULL, NULL, NULL FROM "ExecutionArtifact" l WHERE l."${nodeColumn}" = ${node} AND l.direction = '${direction}'${linkConditions(p, f, "l")}`;
      if (groups) {
        // The run's derivation groups (target in `runid`, groupId in `subtype`): which inputs it used together.
        sql += ` UNION ALL SELECT 'group', 'up', e."sourceId", NULL, NULL, NULL, e."targetId", e."groupId", NULL, e.id FROM "ProvenanceEdge" e WHERE e."runId" = ${node}${edgeConditions(p, f, "e")}`;
      }
      if (ref.kind === "ARTIFACT" && side === "down") {
        // Each consuming run's co-inputs: the other sources of the derivations it made from this artifact.
        sql +=
          ` UNION ALL SELECT 'coinput', 'down', e2."sourceId", NULL, l.role, NULL, e."runId", NULL, NULL, NULL FROM "ProvenanceEdge" e ` +
          `JOIN "ProvenanceEdge" e2 ON e2."targetId" = e."targetId" AND ${byOtherIndex(p, `e2."runId"`)} = e."runId" AND ${byOtherIndex(p, `e2."groupId"`)} = e."groupId" AND e2."sourceId" <> e."sourceId" ` +
          `LEFT JOIN "ExecutionArtifact" l ON ${byOtherIndex(p, `l."runId"`)} = e."runId" AND l."artifactId" = e2."sourceId" AND l.direction = 'CONSUMED' ` +
          `WHERE e."sourceId" = ${node}${edgeConditions(p, f, "e")}${edgeConditions(p, f, "e2")}`;
      }
    }
  }
  const rows = rowObjects(await reader.readRows(sql, p.params));
  const bySide = new Map<Side, Entry[]>([["up", []], ["down", []]]);
  const groupsOf = new Map<string, Set<string>>();
  for (const row of rows) {
    const side = row.side as Side;
    const nb = asText(row.nb);
    switch (row.row) {
      case "exists":
        result.exists = true;
        break;
      case "nb": {
        const key = ref.kind === "COLUMN" ? columnKeyOf(nb!, asText(row.nbfield)) : nb!;
        bySide.get(side)!.push({ side, key, members: [key] });
        break;
      }
      case "before":
        result.before.set(side, Number(row.n));
        break;
      case "role": {
        const key = `${side}\u0000${nb}`;
        appendTo(result.roles, key, asText(row.role));
        break;
      }
      case "group": {
        const key = asText(row.subtype) === null ? `edge:${row.n}` : `${asText(row.runid)}\u0000${asText(row.subtype)}`;
        groupsOf.set(key, (groupsOf.get(key) ?? new Set()).add(nb!));
        break;
      }
      case "coinput":
        result.coInputs.push([asText(row.runid)!, nb!, asText(row.role)]);
        break;
      case "edge": {
        const key = `${side}\u0000${columnKeyOf(nb!, asText(row.nbfield))}`;
        const kind = asText(row.kind) === "INDIRECT" ? "COLUMN_INDIRECT" : "COLUMN_DIRECT";
        const id = asText(row.nbfield) === null && side === "up" ? `${graphEdgeId.column(Number(row.n))}:${encodeURIComponent(ref.kind === "COLUMN" ? ref.field : "")}` : graphEdgeId.column(Number(row.n));
        appendTo(result.columnEdges, key, { id, kind, runId: asText(row.runid)!, subtype: asText(row.subtype), masking: row.masking === true || row.masking === 1 });
        break;
      }
    }
  }
  for (const [key, roles] of result.roles) result.roles.set(key, [...new Set(roles)].sort((a, b) => compareIds(a ?? "", b ?? "")));
  for (const side of sides) {
    let entries = bySide.get(side)!.sort((a, b) => compareIds(a.key, b.key));
    if (ref.kind === "RUN" && side === "up") {
      entries = groupEntries(entries, [...groupsOf.values()]);
      if (after?.side === "up") {
        result.before.set("up", entries.filter((e) => compareIds(e.key, after.key) <= 0).reduce((n, e) => n + e.members.length, 0));
        entries = entries.filter((e) => compareIds(e.key, after.key) > 0);
      }
    } else if (entries.length > first) {
      // Read first + 1: the rest of this side lies beyond the page.
      entries = entries.slice(0, first + 1);
    }
    result.entries.push(...entries);
  }
  return result;
}

/** A run's inputs as entries: inputs joined by a derivation group (transitively) make one, keyed by its smallest id. */
function groupEntries(entries: Entry[], groups: Set<string>[]): Entry[] {
  const parent = new Map(entries.map((e) => [e.key, e.key]));
  const root = (k: string): string => {
    while (parent.get(k) !== k) k = parent.get(k)!;
    return k;
  };
  for (const group of groups) {
    const members = [...group].filter((id) => parent.has(id));
    for (const m of members.slice(1)) {
      const [a, b] = [root(members[0]), root(m)];
      if (a !== b) parent.set(compareIds(a, b) < 0 ? b : a, compareIds(a, b) < 0 ? a : b);
    }
  }
  const byRoot = new Map<string, string[]>();
  for (const e of entries) appendTo(byRoot, root(e.key), e.key);
  return [...byRoot].map(([, members]) => members.sort(compareIds)).sort((a, b) => compareIds(a[0], b[0])).map((members) => ({ side: "up", key: members[0], members }));
}

/** A column neighbour's id: a column, or a whole version (a dataset-wide edge's target). */
function columnKeyOf(artifactId: string, field: string | null): string {
  return field === null ? artifactId : columnNodeId(artifactId, field);
}

function splitColumnKey(key: string): [string, string | null] {
  if (!key.startsWith("col:")) return [key, null];
  const ref = parseGraphNodeId("after", key);
  return ref.kind === "COLUMN" ? [ref.artifactId, ref.field] : [key, null];
}

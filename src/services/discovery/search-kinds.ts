/** What search finds (docs: "Search"). JOB: registered operations and OpenLineage jobs. */
export const SEARCH_KINDS = ["ARTIFACT", "DATASET", "COLUMN", "JOB", "PIPELINE", "RUN", "POLICY_TAG"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/**
 * The kinds the search index holds a document for (runs are found by their id alone), in the order
 * hits of one rank are listed. Each kind's documents have ids in a range of their own, lower for a
 * kind listed earlier, handed out downwards from the top of the range (a newer document has a lower
 * id): an index read by id forwards — what FTS5 reads fastest — lists them kind by kind, newest first
 * within a kind, and a kinds filter is a range of ids.
 */
export const DOCUMENT_KINDS = ["DATASET", "JOB", "PIPELINE", "POLICY_TAG", "COLUMN", "ARTIFACT"] as const satisfies readonly SearchKind[];
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** Ids of one kind's documents: 2^40 of them (the range stays below 2^53, exact as a JavaScript number). */
export const KIND_ID_SPAN = 2 ** 40;

/** The ids of a kind's documents: [low, high); the first handed out is `top` (high − 1), each next one lower. */
export function idRangeOf(kind: DocumentKind): { low: number; high: number; top: number } {
  const low = (1 + DOCUMENT_KINDS.indexOf(kind)) * KIND_ID_SPAN;
  return { low, high: low + KIND_ID_SPAN, top: low + KIND_ID_SPAN - 1 };
}

/** The kind of a document id, or undefined when it is in no kind's range. */
export function kindOfDocumentId(id: number): DocumentKind | undefined {
  const slot = Math.floor(id / KIND_ID_SPAN);
  return slot >= 1 ? DOCUMENT_KINDS[slot - 1] : undefined;
}

export function isDocumentKind(kind: SearchKind): kind is DocumentKind {
  return (DOCUMENT_KINDS as readonly string[]).includes(kind);
}

/**
 * Which entries the unique index of (kind, key) holds, as its own condition says it (migration
 * 20261205000000_search_entry_keys_of_named_things): every kind but ARTIFACT, an artifact's entry being
 * written once, by the unit that created the artifact. A statement that looks keys up repeats it, for
 * the database to use that index (SQLite takes a partial index only then); `alias` names the table.
 */
export const keyedKinds = (alias?: string) => `${alias ? `${alias}.` : ""}"kind" <> 'ARTIFACT'`;

/**
 * Keys of documents that stand for several rows (a dataset across its versions, a column across
 * them): unambiguous for any names, each name led by its length in code points (what SQL's length() counts).
 */
const lengthLed = (name: string) => `${[...name].length}:${name}`;
export const datasetKey = (namespace: string, name: string) => lengthLed(namespace) + lengthLed(name);
export const columnKey = (namespace: string, name: string, field: string) => datasetKey(namespace, name) + field;

/** The namespace and name a dataset's or column's key starts with, and the rest (a column's field). */
export function parseDatasetKey(key: string): { namespace: string; name: string; rest: string } | undefined {
  const read = (from: number): { value: string; next: number } | undefined => {
    const colon = key.indexOf(":", from);
    const length = Number(key.slice(from, colon));
    if (colon < 0 || !Number.isInteger(length) || length < 0) return undefined;
    const points = [...key.slice(colon + 1)].slice(0, length).join("");
    return { value: points, next: colon + 1 + points.length };
  };
  const namespace = read(0);
  const name = namespace && read(namespace.next);
  if (!namespace || !name) return undefined;
  return { namespace: namespace.value, name: name.value, rest: key.slice(name.next) };
}

/** What a hit opens, by kind (docs: "Search"): art_… , run_… , op_… as they are; the others prefixed. */
export const jobTarget = (namespace: string, name: string) => `job:${namespace}/${name}`;
export const pipelineTarget = (name: string) => `pipeline:${name}`;
export const tagTarget = (tag: string) => `tag:${tag}`;
/** A column of a dataset version: `col:<art_id>:<field>`, the field URI-encoded (the graph API's node id of a column). */
export const columnTarget = (artifactId: string, field: string) => `col:${artifactId}:${encodeURIComponent(field)}`;

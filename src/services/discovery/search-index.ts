import type { DbTx } from "../../db/client";
import type { DatabaseProvider } from "../../db/database-url";
import { jsonParameter } from "../../db/json-list";
import { insertRows, mapInTurns, type SearchableWrite } from "../recording";
import { comparedText, documentsOf, type SearchDocument, searchedText } from "./search-documents";
import { DOCUMENT_KINDS, type DocumentKind, idRangeOf, keyedKinds } from "./search-kinds";
import { Params, type SqlRunner, sqlRunnerOf } from "./sql-runner";

/**
 * Keeps the search index current inside the recording transaction (the commit path's unit finisher
 * calls it with what the unit wrote): a write that commits is findable from that commit on, a unit
 * that rolls back leaves no entry behind. On SQLite an entry is a row of SearchEntry and, under the
 * same id, its label in the FTS5 table SearchLabelText (and a description in SearchGuardedText);
 * on PostgreSQL the row alone, its texts indexed by GIN indexes (tsvector for words, pg_trgm for substrings).
 *
 * A write already indexed changes nothing, but a column whose description changed: the entry then
 * holds the new description, guarded by the column version that reported it.
 */
export async function indexSearchableWrites(tx: DbTx, provider: DatabaseProvider, writes: readonly SearchableWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const run = sqlRunnerOf(tx, provider);
  const datasets = await datasetsOfColumns(run, writes);
  const documents = await documentsOf(writes, (artifactId) => datasets.get(artifactId) ?? null);
  if (documents.length === 0) return;
  // A created artifact has no entry yet; the others (a dataset's further version, a column reported again) may.
  const existing = await existingEntries(run, documents.filter((d) => d.kind !== "ARTIFACT"));
  const added: SearchDocument[] = [];
  const described: (SearchDocument & { id: number })[] = [];
  for (const document of documents) {
    const entry = existing.get(entryKey(document.kind, document.key));
    if (!entry) added.push(document);
    else if (document.guarded !== null && document.guarded !== entry.guarded) described.push({ ...document, id: entry.id });
  }
  if (provider === "sqlite") await addOnSqlite(tx, run, added);
  else await addOnPostgres(run, added);
  for (const document of described) await describe(run, document);
}

const entryKey = (kind: string, key: string) => `${kind}\u0000${key}`;

/** The datasets of the versions whose columns the unit noted (from the unit's own artifacts, else one read). */
async function datasetsOfColumns(run: SqlRunner, writes: readonly SearchableWrite[]): Promise<Map<string, { namespace: string; name: string }>> {
  const datasets = new Map<string, { namespace: string; name: string }>();
  for (const write of writes) if (write.kind === "ARTIFACT" && write.dataset) datasets.set(write.id, write.dataset);
  const unknown = [...new Set(writes.flatMap((w) => (w.kind === "COLUMN" && !datasets.has(w.artifactId) ? [w.artifactId] : [])))];
  if (unknown.length === 0) return datasets;
  const ids = run.provider === "sqlite" ? "SELECT value FROM json_each(?)" : "SELECT json_array_elements_text($1::json)";
  // bounded: the ids travel as one JSON parameter; the statement holds no list
  const rows = await run.query(`SELECT "id", "datasetNamespace", "datasetName" FROM "Artifact" WHERE "id" IN (${ids}) AND "datasetNamespace" IS NOT NULL`, [JSON.stringify(unknown)]);
  for (const [id, namespace, name] of rows) datasets.set(String(id), { namespace: String(namespace), name: String(name) });
  return datasets;
}

async function existingEntries(run: SqlRunner, documents: readonly SearchDocument[]): Promise<Map<string, { id: number; guarded: string | null }>> {
  const entries = new Map<string, { id: number; guarded: string | null }>();
  if (documents.length === 0) return entries;
  const sql =
    run.provider === "sqlite"
      ? `SELECT e."id", e."kind", e."key", e."guarded" FROM json_each(?) j JOIN "SearchEntry" e ON e."kind" = json_extract(j.value, '$[0]') AND e."key" = json_extract(j.value, '$[1]') AND ${keyedKinds("e")}`
      : `SELECT e."id", e."kind", e."key", e."guarded" FROM json_array_elements($1::json) j JOIN "SearchEntry" e ON e."kind" = j->>0 AND e."key" = j->>1 AND ${keyedKinds("e")}`;
  const rows = await run.query(sql, [JSON.stringify(documents.map((d) => [d.kind, d.key]))]);
  for (const [id, kind, key, guarded] of rows) entries.set(entryKey(String(kind), String(key)), { id: Number(id), guarded: guarded === null ? null : String(guarded) });
  return entries;
}

/** The columns of SearchEntry both databases have, in the order entryRow gives them. */
const ENTRY_COLUMNS = ["id", "kind", "key", "label", "labelFolded", "keywords", "keywordsFolded", "guarded", "guardArtifactId", "guardField", "target", "namespace", "detail"];
/** PostgreSQL's besides: the texts as the trigram and word indexes read them (on SQLite the FTS5 tables hold them). */
const MARKED_COLUMNS = ["labelMarked", "guardedMarked"];

function entryRow(id: number, d: SearchDocument): unknown[] {
  return [id, d.kind, d.key, d.label, comparedText(d.label), d.keywords, d.keywords === null ? null : comparedText(d.keywords), d.guarded, d.guard?.artifactId ?? null, d.guard?.field ?? null, d.target, d.namespace, d.detail];
}

function markedTexts(d: SearchDocument): [string, string | null] {
  return [searchedText(d.label), d.guarded === null ? null : searchedText(d.guarded)];
}

/**
 * SQLite: one writer, so each kind's next ids are below its lowest (one index probe per kind); the
 * entries, then their texts in the FTS5 tables under the same ids.
 */
async function addOnSqlite(tx: DbTx, run: SqlRunner, documents: readonly SearchDocument[]): Promise<void> {
  if (documents.length === 0) return;
  const next = new Map<DocumentKind, number>();
  for (const kind of DOCUMENT_KINDS) {
    if (!documents.some((d) => d.kind === kind)) continue;
    const { low, high, top } = idRangeOf(kind);
    const [[lowest]] = await run.query(`SELECT min("id") FROM "SearchEntry" WHERE "id" >= ? AND "id" < ?`, [low, high]);
    next.set(kind, lowest === null ? top : Number(lowest) - 1);
  }
  const ids = new Map<number, SearchDocument>();
  // Folding and marking 20,000 texts takes its turns (mapInTurns), as the statements do.
  const rows = await mapInTurns(documents, (d) => {
    const id = next.get(d.kind)!;
    next.set(d.kind, id - 1);
    ids.set(id, d);
    return entryRow(id, d);
  });
  const inserted = (await insertRows(tx, "SearchEntry", ENTRY_COLUMNS, rows, { ignoreConflicts: true, returning: "id" })).map(Number);
  await countNamespaces(tx, inserted.map((id) => ids.get(id)!));
  const texts = await mapInTurns(inserted, (id) => [id, ...markedTexts(ids.get(id)!)] as const);
  await insertRows(tx, "SearchLabelText", ["rowid", "text"], texts.map(([id, label]) => [id, label]));
  await insertRows(tx, "SearchGuardedText", ["rowid", "text"], texts.flatMap(([id, , guarded]) => (guarded === null ? [] : [[id, guarded]])));
}

/**
 * PostgreSQL: instances may write at once, so ids come from one sequence (taken from the top of the
 * kind's range), drawn in the order the unit wrote the things (the newest lowest, as on SQLite), and an entry
 * another transaction added meanwhile is left as it is. One statement, the rows as one JSON
 * parameter, inserted in key order (one lock order for every transaction).
 */
async function addOnPostgres(run: SqlRunner, documents: readonly SearchDocument[]): Promise<void> {
  if (documents.length === 0) return;
  const columns = [...ENTRY_COLUMNS, ...MARKED_COLUMNS];
  const payload = await mapInTurns(documents, (d) => {
    const values = [...entryRow(idRangeOf(d.kind).top, d), ...markedTexts(d)];
    return Object.fromEntries(columns.map((column, i) => [column, values[i]]));
  });
  const list = columns.map((c) => `"${c}"`).join(", ");
  const selected = columns.map((c) => (c === "id" ? `r."id" - r."n"` : `r."${c}"`)).join(", ");
  // The namespaces of the datasets and jobs it added count them, in the same statement.
  await run.execute(
    `WITH r AS MATERIALIZED (SELECT x.*, nextval('"SearchEntry_seq"') AS "n" FROM (SELECT p.* FROM json_populate_recordset(NULL::"SearchEntry", $1::json) WITH ORDINALITY AS p ORDER BY p.ordinality) x), ` +
      `added AS (INSERT INTO "SearchEntry" (${list}) SELECT ${selected} FROM r ORDER BY r."kind", r."key" ON CONFLICT ("kind", "key") WHERE ${keyedKinds()} DO NOTHING RETURNING "kind", "namespace") ` +
      `INSERT INTO "SearchNamespace" ("name", "datasets", "jobs") SELECT a."namespace", sum(CASE WHEN a."kind" = 'DATASET' THEN 1 ELSE 0 END), sum(CASE WHEN a."kind" = 'JOB' THEN 1 ELSE 0 END) ` +
      `FROM added a WHERE a."kind" IN ('DATASET', 'JOB') AND a."namespace" IS NOT NULL GROUP BY a."namespace" ORDER BY a."namespace" ` +
      `ON CONFLICT ("name") DO UPDATE SET "datasets" = "SearchNamespace"."datasets" + excluded."datasets", "jobs" = "SearchNamespace"."jobs" + excluded."jobs"`,
    [jsonParameter(payload)],
  );
}

/** SQLite: the namespaces of the datasets and jobs just added count them. */
async function countNamespaces(tx: DbTx, added: readonly SearchDocument[]): Promise<void> {
  const counts = new Map<string, [number, number]>();
  for (const d of added) {
    if ((d.kind !== "DATASET" && d.kind !== "JOB") || d.namespace === null) continue;
    const count = counts.get(d.namespace) ?? [0, 0];
    count[d.kind === "DATASET" ? 0 : 1] += 1;
    counts.set(d.namespace, count);
  }
  if (counts.size === 0) return;
  const rows = [...counts].map(([name, [datasets, jobs]]) => [name, datasets, jobs]);
  const run = sqlRunnerOf(tx, "sqlite");
  for (const row of rows) {
    await run.execute(`INSERT INTO "SearchNamespace" ("name", "datasets", "jobs") VALUES (?, ?, ?) ON CONFLICT ("name") DO UPDATE SET "datasets" = "datasets" + excluded."datasets", "jobs" = "jobs" + excluded."jobs"`, row);
  }
}

/** A column's entry takes the description a newer version reported, and that version's guard. */
async function describe(run: SqlRunner, d: SearchDocument & { id: number }): Promise<void> {
  const params = new Params(run.provider);
  const marked = run.provider === "postgres" ? `, "guardedMarked" = ${params.bind(searchedText(d.guarded!))}` : "";
  const set = `"guarded" = ${params.bind(d.guarded)}, "guardArtifactId" = ${params.bind(d.guard!.artifactId)}, "guardField" = ${params.bind(d.guard!.field)}${marked}`;
  await run.execute(`UPDATE "SearchEntry" SET ${set} WHERE "id" = ${params.bind(d.id)}`, params.values);
  if (run.provider !== "sqlite") return;
  await run.execute(`DELETE FROM "SearchGuardedText" WHERE rowid = ?`, [d.id]);
  await run.execute(`INSERT INTO "SearchGuardedText" (rowid, "text") VALUES (?, ?)`, [d.id, markedTexts(d)[1]]);
}

import { inChunks, RECORDING_READ_CHUNK } from "../../db/chunked-lists";
import type { DbTx } from "../../db/client";
import { directStatementsOf } from "../../db/direct-statements";
import type { Artifact } from "../../generated/sqlite/client";
import { type ArtifactRecord, toArtifactRecord } from "../records";


const COLUMNS = ["id", "artifactType", "contentHash", "originalName", "metadata", "datasetNamespace", "datasetName", "datasetVersion", "createdAt"] as const;

/**
 * The stored artifacts among `ids`, read inside the unit's transaction: one statement, the ids as one
 * JSON parameter and past Prisma's query pipeline when the commit path opened the transaction (every
 * recording reads its inputs; the typed findMany costs several times more), else through the typed API.
 */
export async function storedArtifacts(tx: DbTx, ids: readonly string[]): Promise<ArtifactRecord[]> {
  if (ids.length === 0) return [];
  const direct = directStatementsOf(tx);
  if (!direct) return (await inChunks(ids, (chunk) => tx.artifact.findMany({ where: { id: { in: chunk } } }))).map(toArtifactRecord);
  const list = COLUMNS.map((column) => `"${column}"`).join(", ");
  const sql =
    direct.provider === "sqlite"
      ? `SELECT ${list} FROM "Artifact" WHERE id IN (SELECT value FROM json_each(?))`
      : `SELECT ${list} FROM "Artifact" WHERE id IN (SELECT json_array_elements_text($1::json))`;
  // A join's 20,000 inputs in slices of RECORDING_READ_CHUNK: each statement (synchronous on SQLite) and its rows' mapping
  // stay a few ms, and the statements take turns with other requests (statement-turns.ts) rather than one long task.
  // Each chunk's rows are mapped as soon as they are read: the mapping of 20,000 rows is not one task either.
  return inChunks(ids, async (chunk) => (await direct.query(sql, [JSON.stringify(chunk)])).rows.map(recordOf), RECORDING_READ_CHUNK);
}

function recordOf(row: unknown[]): ArtifactRecord {
  return toArtifactRecord({
    id: row[0],
    artifactType: row[1],
    contentHash: row[2],
    originalName: row[3],
    metadata: row[4],
    datasetNamespace: row[5],
    datasetName: row[6],
    datasetVersion: row[7],
    createdAt: new Date(String(row[8])),
  } as Artifact);
}

import { inChunks } from "../db/chunked-lists";
import type { Db } from "../db/client";
import type { OperationId } from "./ids";
import type { KeysetPage } from "./pagination";
import { type OperationRecord, toOperationRecord } from "./records";

/** Reads registered operations with their declared roles. */
export class OperationReader {
  constructor(private readonly db: Db) {}

  async byIds(ids: readonly OperationId[]): Promise<(OperationRecord | null)[]> {
    const rows = await inChunks(new Set(ids), (chunk) => this.db.operation.findMany({ where: { id: { in: chunk } }, include: { roles: true } }));
    const byId = new Map(rows.map((row) => [row.id, toOperationRecord(row)]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  async byNameAndVersion(name: string, version: string): Promise<OperationRecord | null> {
    const row = await this.db.operation.findUnique({ where: { name_version: { name, version } }, include: { roles: true } });
    return row ? toOperationRecord(row) : null;
  }

  /** Ordered by name, then version; keyset-paginated on the operation id's (name, version). */
  async list(page: KeysetPage<{ name: string; version: string }>): Promise<OperationRecord[]> {
    const direction = page.inverted ? "desc" : "asc";
    const after = page.after;
    const before = page.before;
    const rows = await this.db.operation.findMany({
      where: {
        AND: [
          after ? { OR: [{ name: { gt: after.name } }, { name: after.name, version: { gt: after.version } }] } : {},
          before ? { OR: [{ name: { lt: before.name } }, { name: before.name, version: { lt: before.version } }] } : {},
        ],
      },
      orderBy: [{ name: direction }, { version: direction }],
      take: page.limit,
      include: { roles: true },
    });
    return rows.map(toOperationRecord);
  }
}

import type { Db } from "../db/client";
import type { Operation, OperationRole } from "../generated/sqlite/client";
import type { OperationId } from "./ids";
import type { KeysetPage } from "./pagination";
import { type OperationRecord, toOperationRecord } from "./records";
import { type RowsById, storedBoolean, storedTime } from "../db/rows-by-id";

/** An operation row's columns, and a role row's (every column of their tables but the relations). */
const OPERATION_COLUMNS = ["id", "name", "version", "kind", "groupBy", "declaration", "createdAt"] as const satisfies readonly (keyof Operation)[];
const ROLE_COLUMNS = ["operationId", "direction", "role", "position", "artifactType", "required", "lineageFrom", "lineageRoles"] as const satisfies readonly (keyof OperationRole)[];

/** Reads registered operations with their declared roles. */
export class OperationReader {
  constructor(
    private readonly db: Db,
    private readonly rows: RowsById,
  ) {}

  /** The operations of a loader's batch with their roles: two statements past Prisma (src/db/rows-by-id.ts). */
  async byIds(ids: readonly OperationId[]): Promise<(OperationRecord | null)[]> {
    const [operations, roles] = await Promise.all([this.rows.read("Operation", "id", OPERATION_COLUMNS, ids), this.rows.readGroups("OperationRole", "operationId", ROLE_COLUMNS, ids)]);
    const byId = new Map<string, OperationRecord>();
    for (const [id, row] of operations) {
      const roleRows = (roles.get(id) ?? []).map((role) => ({ ...(role as unknown as OperationRole), position: Number(role.position), required: storedBoolean(role.required)! }));
      byId.set(id, toOperationRecord({ ...(row as unknown as Operation), createdAt: storedTime(row.createdAt)!, roles: roleRows }));
    }
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

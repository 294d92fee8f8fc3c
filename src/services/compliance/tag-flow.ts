import crypto from "node:crypto";
import type { TagFlowRequest } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import type { DatabaseProvider } from "../../db/database-url";
import { type TagFlowSeeds, tagFlowStatement } from "./tag-flow-sql";

/** Near-end nodes per statement: three bind values each, well under both databases' limits. */
const NODES_PER_STATEMENT = 5_000;

/**
 * Lets policy tags flow, inside a recording unit's transaction: the implementation behind the
 * DerivationPort's `policyTags.flow` (plugins/types.ts), which the policy-tags plugin calls at the
 * end of every unit, and the admin mutations' backfill. Each hop set is one recursive statement
 * (./tag-flow-sql.ts); a walk deeper than a hop set continues from the nodes its last hop reached.
 */
export class TagFlow {
  constructor(private readonly provider: DatabaseProvider) {}

  async flow(tx: DbTx, request: TagFlowRequest): Promise<{ changed: number }> {
    let changed = 0;
    const rederive = [...new Set(request.rederive ?? [])];
    if (rederive.length > 0) {
      // Derived holdings of these tags are forgotten (origins keep theirs, depth 0) and derived again.
      await tx.$executeRawUnsafe(`DELETE FROM "PolicyTagHolding" WHERE tag IN (${this.placeholders(rederive.length)}) AND depth > 0`, ...rederive);
      changed += await this.walk(tx, { tagsOf: rederive });
    }
    const origins = [...new Set(request.origins ?? [])];
    if (origins.length > 0) changed += await this.walk(tx, { assignments: origins });
    const nodes = distinctNodes(request.from ?? []);
    for (let start = 0; start < nodes.length; start += NODES_PER_STATEMENT) changed += await this.walk(tx, { nodes: nodes.slice(start, start + NODES_PER_STATEMENT) });
    return { changed };
  }

  /** One walk: its first hop set, then one more from each frontier until a hop set ends inside its bound. */
  private async walk(tx: DbTx, seeds: TagFlowSeeds): Promise<number> {
    let pass = newPass();
    let changed = await this.run(tx, seeds, pass);
    while (changed > 0) {
      const [{ n }] = await tx.$queryRawUnsafe<{ n: number | bigint }[]>(`SELECT COUNT(*) AS n FROM "PolicyTagHolding" WHERE frontier = ${this.placeholders(1)}`, pass);
      if (Number(n) === 0) break;
      const next = newPass();
      const more = await this.run(tx, { frontier: pass }, next);
      await tx.$executeRawUnsafe(`UPDATE "PolicyTagHolding" SET frontier = NULL WHERE frontier = ${this.placeholders(1)}`, pass);
      changed += more;
      pass = next;
      if (more === 0) break;
    }
    return changed;
  }

  private async run(tx: DbTx, seeds: TagFlowSeeds, pass: number): Promise<number> {
    const { sql, params } = tagFlowStatement(this.provider, seeds, pass);
    return tx.$executeRawUnsafe(sql, ...params);
  }

  private placeholders(count: number): string {
    return Array.from({ length: count }, (_, i) => (this.provider === "sqlite" ? "?" : `$${i + 1}`)).join(", ");
  }
}

/** A pass marks the frontier of one statement; random, so concurrent transactions never share one. */
function newPass(): number {
  return crypto.randomInt(1, 2 ** 31 - 1);
}

function distinctNodes(nodes: TagFlowRequest["from"] & {}): { nodeKind: string; artifactId: string; field: string }[] {
  const seen = new Map<string, { nodeKind: string; artifactId: string; field: string }>();
  for (const node of nodes) {
    const row = { nodeKind: node.kind, artifactId: node.artifactId, field: node.kind === "COLUMN" ? node.field : "" };
    seen.set(JSON.stringify(row), row);
  }
  return [...seen.values()];
}

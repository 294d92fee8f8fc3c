import crypto from "node:crypto";
import type { TagFlowRequest } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import type { DatabaseProvider } from "../../db/database-url";
import { jsonListSelect } from "../../db/json-list";
import { better, type TagFlowSeeds, tagFlowStatement } from "./tag-flow-sql";

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
      await tx.$executeRawUnsafe(`DELETE FROM "PolicyTagHolding" WHERE tag IN (${jsonListSelect(this.provider, this.placeholders(1), rederive.length)}) AND depth > 0`, JSON.stringify(rederive));
      changed += await this.walk(tx, { tagsOf: rederive });
    }
    const origins = [...new Set(request.origins ?? [])];
    if (origins.length > 0) changed += await this.walk(tx, { assignments: origins });
    // New versions of datasets take the tags assigned to their dataset's columns, then flow from there like any near end.
    const versions = [...new Set(request.versions ?? [])];
    if (versions.length > 0) changed += await this.holdDatasetTags(tx, versions);
    const nodes = distinctNodes([...(request.from ?? []), ...versions.map((artifactId) => ({ kind: "ARTIFACT" as const, artifactId }))]);
    for (let start = 0; start < nodes.length; start += NODES_PER_STATEMENT) changed += await this.walk(tx, { nodes: nodes.slice(start, start + NODES_PER_STATEMENT) });
    return { changed };
  }

  /**
   * Each of these versions holds, at depth 0, every tag assigned to a column of its dataset
   * (DATASET_COLUMN: every version, past and future): one statement for all of them.
   */
  private async holdDatasetTags(tx: DbTx, versions: readonly string[]): Promise<number> {
    let changed = 0;
    for (let start = 0; start < versions.length; start += NODES_PER_STATEMENT) {
      const chunk = versions.slice(start, start + NODES_PER_STATEMENT);
      // bounded: NODES_PER_STATEMENT versions (the loop's chunk)
      changed += await tx.$executeRawUnsafe(
        `INSERT INTO "PolicyTagHolding" ("nodeKind", "artifactId", field, tag, "originId", depth, opaque, frontier) ` +
          `SELECT 'COLUMN', v.id, a.field, a.tag, a.id, 0, FALSE, NULL FROM "Artifact" v JOIN "PolicyTagAssignment" a ON a."datasetNamespace" = v."datasetNamespace" AND a."datasetName" = v."datasetName" AND a."nodeKind" = 'DATASET_COLUMN' ` +
          `WHERE v.id IN (${this.placeholders(chunk.length)}) ` +
          `ON CONFLICT ("nodeKind", "artifactId", field, tag) DO UPDATE SET "originId" = excluded."originId", depth = excluded.depth, opaque = excluded.opaque, frontier = excluded.frontier WHERE ${better("excluded", `"PolicyTagHolding"`)}`,
        ...chunk,
      );
    }
    return changed;
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
    // A joined key, not JSON.stringify of the row: a join's 20,000 near ends, several times cheaper.
    seen.set(`${row.nodeKind}\u0000${row.artifactId}\u0000${row.field}`, row);
  }
  return [...seen.values()];
}

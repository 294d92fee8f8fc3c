import type { HeavyReadContext, HeavyReadJobs } from "../heavy-reads";
import type { Closure, ClosureQuery } from "./closure";
import { createLineageServices } from "./lineage-services";
import type { ProvJsonDocument } from "./prov-json";

/**
 * The lineage room's heavy reads (run off the event loop, src/services/heavy-reads): a closure's
 * recursive walk reads tens of thousands of rows, a statement the event loop would wait out on
 * SQLite, and its PROV-JSON document is as large.
 */
export const lineageReads = {
  lineageClosure: (query: ClosureQuery, ctx: HeavyReadContext): Promise<Closure> => ctx.use(createLineageServices).closures.closure(query),
  provJson: (query: ClosureQuery, ctx: HeavyReadContext): Promise<ProvJsonDocument> => ctx.use(createLineageServices).provJson.export(query),
} satisfies HeavyReadJobs;

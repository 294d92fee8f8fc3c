import { openLineageRunHistory } from "../../openlineage/run-history";
import { columnReads } from "../columns";
import { discoveryReads } from "../discovery/heavy-reads";
import { evidenceReads } from "../compliance";
import { graphViewReads } from "../graph-views/heavy-reads";
import { lineageReads } from "../lineage";
import { lineageGraphReads } from "../lineage-graph";
import type { HeavyReadJobs } from "./heavy-read-job";
import { jsonTextReads } from "./json-text-reads";

/**
 * Every heavy read, by name: the rooms' own lists, in one place, so a thread loads them all and a
 * caller names one with its argument and result types checked. A room adds its reads here.
 */
export const HEAVY_READS = {
  ...graphViewReads,
  ...lineageReads,
  ...lineageGraphReads,
  ...columnReads,
  ...discoveryReads,
  ...jsonTextReads,
  // The run histories the app registers with the evidence reader in process (app.ts), for the same as-of answers.
  ...evidenceReads([openLineageRunHistory]),
} satisfies HeavyReadJobs;

export type HeavyReadName = keyof typeof HEAVY_READS;
export type HeavyReadArgs<N extends HeavyReadName> = Parameters<(typeof HEAVY_READS)[N]>[0];
export type HeavyReadResult<N extends HeavyReadName> = Awaited<ReturnType<(typeof HEAVY_READS)[N]>>;

import type { DerivationPort, ProvgraphPlugin, TagFlowRequest, WrittenLineage } from "../../../plugins/types";
import type { DbTx } from "../../db/client";
import { prismaReadPort } from "./prisma-read-port";

/**
 * How derived facts are written, given to the recording room by the rooms that own them (the
 * compliance room's tag flow), so the DerivationPort plugins get is implemented here without this
 * room knowing their tables.
 */
export interface DerivationEngines {
  tagFlow: { flow(tx: DbTx, request: TagFlowRequest): Promise<{ changed: number }> };
}

/** The port a propagate plugin writes through: every call runs in the unit's transaction. */
export function derivationPort(tx: DbTx, engines: DerivationEngines): DerivationPort {
  return { policyTags: { flow: (request) => engines.tagFlow.flow(tx, request) } };
}

/**
 * The propagate stage (DESIGN "Recording pipeline"): once per unit, after everything it stages,
 * before its commit, every propagate plugin in list order with what the unit wrote. Nothing to
 * derive from, nothing to run.
 */
export async function runPropagatePlugins(tx: DbTx, plugins: readonly ProvgraphPlugin[], written: WrittenLineage, engines: DerivationEngines): Promise<void> {
  if (written.artifactEdges.length + written.columnEdges.length + written.assignedTags.length + written.downgradedTags.length + written.datasetVersions.length === 0) return;
  const context = { port: prismaReadPort(tx), derive: derivationPort(tx, engines) };
  for (const plugin of plugins) if (plugin.stage === "propagate") await plugin.propagate(written, context);
}

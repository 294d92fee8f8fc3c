import fs from "node:fs";
import { ApiClient, type RemoteOptions } from "../api-client";
import { CliError, ExitCode } from "../exit-codes";
import type { Output } from "../output";
import { formatTable } from "../table";

export interface ErasurePlanOptions extends RemoteOptions {
  kThreshold?: number;
  json: boolean;
}

const PLAN = `mutation Plan($subjectKey: String!, $kThreshold: Int) {
  erasurePlan(subjectKey: $subjectKey, kThreshold: $kThreshold) {
    id status kThreshold createdAt
    roots { artifactId action holds dueBy artifact { originalName } }
    actions { artifactId action depth dueBy argument artifact { originalName } }
    tombstone { action list keyHash }
  }
}`;

interface PlanAnswer {
  id: string;
  status: string;
  kThreshold: number;
  createdAt: string;
  roots: { artifactId: string; action: string; holds: string[]; dueBy: string; artifact: { originalName: string } }[];
  actions: { artifactId: string; action: string; depth: number; dueBy: string; argument: string; artifact: { originalName: string } }[];
  tombstone: { action: string; list: string; keyHash: string };
}

/**
 * `provgraph erasure-plan <subjectKey | ->`: plans (and records) the erasure of one data subject: the
 * artifacts holding it, one action per derived artifact, and the tombstone. `-` reads the key from
 * standard input, so it appears in no process list or shell history.
 */
export async function erasurePlan(subjectKey: string, options: ErasurePlanOptions, out: Output): Promise<number> {
  const key = subjectKey === "-" ? fs.readFileSync(0, "utf8").replace(/\r?\n$/, "") : subjectKey;
  if (key === "") throw new CliError("the subject key is empty", ExitCode.USAGE);
  const client = new ApiClient(options);
  // A plan is recorded: never sent twice by a retry.
  const { erasurePlan: plan } = await client.graphql<{ erasurePlan: PlanAnswer }>(PLAN, { subjectKey: key, kThreshold: options.kThreshold ?? null }, { idempotent: false });
  if (options.json) {
    out.stdout(JSON.stringify(plan, null, 2));
    return ExitCode.OK;
  }
  out.stdout(`erasure plan ${plan.id} (${plan.status}, k = ${plan.kThreshold}): ${plan.roots.length} root${plan.roots.length === 1 ? "" : "s"}, ${plan.actions.length} derived artifact${plan.actions.length === 1 ? "" : "s"}`);
  const rows = [
    ...plan.roots.map((root) => [root.action, "0", root.artifactId, root.artifact.originalName, root.dueBy.slice(0, 10), root.holds.join(", ")]),
    ...plan.actions.map((action) => [action.action, String(action.depth), action.artifactId, action.artifact.originalName, action.dueBy.slice(0, 10), action.argument]),
  ];
  if (rows.length) out.stdout(formatTable(["ACTION", "DEPTH", "ARTIFACT", "NAME", "DUE", "WHY"], rows));
  out.stdout(`then ${plan.tombstone.action} ${plan.tombstone.keyHash} on ${plan.tombstone.list}`);
  return ExitCode.OK;
}

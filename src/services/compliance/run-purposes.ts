import { inChunks } from "../../db/chunked-lists";
import type { DbTx } from "../../db/client";
import type { RunPurposeDraft } from "../recording";
import { PurposeChangedError, PurposeNotGrantedError, PurposeNotPermittedError } from "./errors";
import { columnsOfRow, type PurposeAccessEntry, writePurposeAccesses } from "./purpose-access";
import { allowedPurposes } from "./tag-purposes";

/**
 * Flows under a purpose (docs: "Purposes"): a run that declares the purpose it acts under may read
 * only what every tag on its inputs allows for that purpose. A run reads its inputs whole — every
 * column of each, whatever column lineage it reports — so the tags held anywhere on an input (its
 * columns, the version as a whole, the artifact) decide. Checked at the end of the unit, after the
 * tags the unit itself gave have flowed; a refusal fails the unit whole. A run accepted is recorded
 * with its purpose (fixed from then on), and each tagged input it read is written to the purpose audit.
 */
export async function settleRunPurposes(tx: DbTx, drafts: readonly RunPurposeDraft[]): Promise<void> {
  for (const draft of drafts) await settleOne(tx, draft);
}

async function settleOne(tx: DbTx, draft: RunPurposeDraft): Promise<void> {
  const { runId, purpose, principal, at } = draft;
  const may = principal.purposes;
  if (may !== undefined && may !== "ANY" && !may.includes(purpose)) throw new PurposeNotGrantedError(principal.name, purpose, at);
  const recorded = await tx.runPurpose.findUnique({ where: { runId }, select: { purpose: true } });
  if (recorded && recorded.purpose !== purpose) throw new PurposeChangedError(at, runId, recorded.purpose);

  const inputIds = [...new Set(draft.inputIds)];
  const holdings = inputIds.length === 0 ? [] : await inChunks(inputIds, (chunk) => tx.policyTagHolding.findMany({ where: { artifactId: { in: chunk } }, select: { artifactId: true, nodeKind: true, field: true, tag: true } }));
  // Deterministic order: the refusal names the same column whatever order the rows come in.
  holdings.sort((a, b) => a.artifactId.localeCompare(b.artifactId) || a.field.localeCompare(b.field) || a.tag.localeCompare(b.tag));
  const allowed = await allowedPurposes(tx, holdings.map((h) => h.tag));
  for (const h of holdings) {
    const serves = allowed.get(h.tag);
    if (serves === undefined || serves.includes(purpose)) continue;
    const artifact = await tx.artifact.findUnique({ where: { id: h.artifactId }, select: { datasetNamespace: true, datasetName: true } });
    const dataset = artifact?.datasetName ? `${artifact.datasetNamespace}/${artifact.datasetName}` : null;
    throw new PurposeNotPermittedError(at, runId, purpose, { artifactId: h.artifactId, field: h.nodeKind === "COLUMN" ? h.field : null, dataset }, h.tag, serves);
  }

  const now = new Date();
  if (!recorded) await tx.runPurpose.create({ data: { runId, purpose, declaredBy: principal.name, tokenId: principal.tokenId, createdAt: now } });
  if (holdings.length === 0) return;
  // What this run's earlier events already put in the audit is not written again.
  const audited = new Set<string>();
  for (const row of await tx.purposeAccess.findMany({ where: { runId, via: "RUN" }, select: { kind: true, artifactId: true, field: true, columns: true } })) {
    if (row.kind === "COLUMNS") for (const field of columnsOfRow(row.columns).keys()) audited.add(JSON.stringify(["COLUMN", row.artifactId, field]));
    else audited.add(JSON.stringify([row.kind, row.artifactId, row.field]));
  }
  // One access per input: its tagged columns together (COLUMNS), the tags on it as a whole (ARTIFACT).
  const read = new Map<string, PurposeAccessEntry>();
  for (const h of holdings) {
    const column = h.nodeKind === "COLUMN";
    if (audited.has(JSON.stringify(column ? ["COLUMN", h.artifactId, h.field] : ["ARTIFACT", h.artifactId, ""]))) continue;
    const key = JSON.stringify([column ? "COLUMNS" : "ARTIFACT", h.artifactId]);
    let entry = read.get(key);
    if (!entry) {
      entry = { principal: principal.name, tokenId: principal.tokenId, purpose, kind: column ? "COLUMNS" : "ARTIFACT", artifactId: h.artifactId, field: "", tags: [], columns: column ? new Map() : null, via: "RUN", runId, requestId: null, at: now };
      read.set(key, entry);
    }
    if (entry.columns) entry.columns.set(h.field, [...(entry.columns.get(h.field) ?? []), h.tag]);
    else entry.tags = [...entry.tags, h.tag];
  }
  await writePurposeAccesses(tx, [...read.values()]);
}

import { randomUUID } from "node:crypto";
import { dataset, postLineage, runEvent } from "./openlineage";
import { tableCounts } from "./recording";
import type { TestApp } from "./test-app";

/** Helpers for the compliance tests: OpenLineage hops with column lineage, tags as read back, every table's count. */

/** A 32+ character erasure secret for test apps (PROVGRAPH_ERASURE_SECRET). */
export const ERASURE_SECRET = "test-erasure-secret-0123456789-abcdefghij";

/** A column edge of a hop: target field ← (source dataset, field, DIRECT | INDIRECT). */
export type HopEdge = [target: string, source: string, field: string, type: "DIRECT" | "INDIRECT"];

/**
 * One OpenLineage run reading `inputs` (each with its schema) and writing `output` (its schema and
 * the column lineage `edges`); the output's version is the run's id unless `version` is given.
 */
export function hopEvent(ns: string, job: string, inputs: { name: string; fields: string[]; facets?: Record<string, unknown> }[], output: { name: string; fields: string[]; facets?: Record<string, unknown> }, edges: HopEdge[], extra: { runFacets?: Record<string, unknown> } = {}) {
  const fields: Record<string, { inputFields: unknown[] }> = {};
  for (const [target, source, field, type] of edges) {
    fields[target] ??= { inputFields: [] };
    fields[target].inputFields.push({ namespace: ns, name: source, field, transformations: [{ type, subtype: type === "DIRECT" ? "TRANSFORMATION" : "FILTER" }] });
  }
  return runEvent({
    runId: randomUUID(),
    run: { runId: randomUUID(), facets: extra.runFacets ?? {} },
    job: { namespace: ns, name: job },
    inputs: inputs.map((i) => dataset(ns, i.name, { schema: { fields: i.fields.map((name) => ({ name })) }, ...i.facets })),
    outputs: [dataset(ns, output.name, { schema: { fields: output.fields.map((name) => ({ name })) }, ...(edges.length > 0 ? { columnLineage: { fields } } : {}), ...output.facets })],
  });
}

/** Posts events one by one through POST /api/v1/lineage (with the admin token in token mode); anything but 201 throws with the answer. */
export async function ingest(t: TestApp & { adminToken?: string }, ...events: Record<string, unknown>[]): Promise<void> {
  for (const event of events) {
    const answer = await postLineage(t, JSON.stringify(event), { "content-type": "application/json", ...(t.adminToken ? { authorization: `Bearer ${t.adminToken}` } : {}) });
    if (answer.status !== 201) throw new Error(`${answer.status} ${answer.text}`);
  }
}

const COLUMN_TAGS = `query($namespace: String!, $name: String!) { dataset(namespace: $namespace, name: $name) { columns { field policyTags { tag level depth inherited throughOpaqueStep origin { id tag source reportedSource value target { scope artifactId namespace name field } } } } } }`;

/**
 * The tags each column of a dataset's newest version holds, as `TAG@depth<-originDataset.originField`
 * (only columns holding any; `~` after the depth when inherited through an opaque step). An origin
 * on a dataset's column (every version) is named by the dataset; one on a version, by `names`.
 */
export async function columnTags(t: TestApp, namespace: string, name: string, names: Map<string, string>): Promise<Record<string, string[]>> {
  const res = await t.gql(COLUMN_TAGS, { namespace, name });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  const out: Record<string, string[]> = {};
  for (const column of res.data!.dataset.columns) {
    if (column.policyTags.length === 0) continue;
    out[column.field] = column.policyTags.map((h: any) => {
      const target = h.origin.target;
      const origin = target.scope === "DATASET" ? target.name : (names.get(target.artifactId) ?? target.artifactId);
      return `${h.tag}@${h.depth}${h.throughOpaqueStep ? "~" : ""}<-${origin}.${target.field ?? "*"}`;
    });
  }
  return out;
}

/** The newest version's artifact id of a dataset. */
export async function latestVersionId(t: TestApp, namespace: string, name: string): Promise<string> {
  const res = await t.gql(`query($namespace: String!, $name: String!) { dataset(namespace: $namespace, name: $name) { latestVersion { id } } }`, { namespace, name });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data!.dataset.latestVersion.id;
}

/** Row counts of every table, the compliance ones and the auth ones included. */
export async function allCounts(t: TestApp) {
  const db = t.app.database.prisma;
  // Tagged reads under a purpose are written a moment after they happen: counted once written.
  await t.app.services.compliance.purposeAudit.flush();
  return {
    ...(await tableCounts(t)),
    apiTokens: await db.apiToken.count(),
    auditEvents: await db.auditEvent.count(),
    tagAssignments: await db.policyTagAssignment.count(),
    tagHoldings: await db.policyTagHolding.count(),
    tagDowngrades: await db.policyTagDowngrade.count(),
    columnFacets: await db.columnFacet.count(),
    catalogueFacts: await db.catalogueFact.count(),
    subjectDeclarations: await db.subjectDeclaration.count(),
    erasurePlans: await db.erasurePlan.count(),
    erasureExecutions: await db.erasureExecution.count(),
    tombstones: await db.subjectTombstone.count(),
    privacyBudgets: await db.privacyBudget.count(),
    privacyReleases: await db.privacyRelease.count(),
    privacyLedgerEntries: await db.privacyLedgerEntry.count(),
    privacyBudgetChanges: await db.privacyBudgetChange.count(),
    tagPurposePolicies: await db.tagPurposePolicy.count(),
    runPurposes: await db.runPurpose.count(),
    purposeAccesses: await db.purposeAccess.count(),
    // Spent amounts: a refused release leaves every budget as it was.
    privacySpent: (await db.privacyBudget.findMany({ orderBy: [{ namespace: "asc" }, { name: "asc" }] })).map((b) => `${b.namespace}/${b.name} ${b.epsilonSpent} ${b.deltaSpent} ${b.epsilonTotal}`),
  };
}

/** Every holding in the store, as sorted plain rows (for comparing the incremental flow with a recompute). */
export async function allHoldings(t: TestApp) {
  const rows = await t.app.database.prisma.policyTagHolding.findMany();
  return rows.map((r) => `${r.nodeKind} ${r.artifactId} ${r.field} ${r.tag} ${r.originId} ${r.depth}`).sort();
}

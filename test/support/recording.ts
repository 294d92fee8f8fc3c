import { sha256Of } from "./content-hash";
import type { TestApp } from "./test-app";

export { sha256Of };

/** GraphQL documents and helpers for recording through the API, as a pipeline would. */

const VIOLATION_FIELDS = "rule role output outputs candidates";

export const REGISTER_OPERATION = `mutation($input: RegisterOperationInput!) {
  registerOperation(input: $input) {
    __typename
    ... on Operation { id name version kind groupBy }
    ... on Error { code message }
    ... on OperationDeclarationError { ${VIOLATION_FIELDS} }
  }
}`;

export const RECORD_EXECUTION = `mutation($input: RecordExecutionInput!) {
  recordExecution(input: $input) {
    __typename
    ... on RecordExecutionPayload { edgeCount execution { runId specId status outputs { role position artifact { id originalName artifactType } } } }
    ... on Error { code message }
    ... on ArtifactValidationError { ${VIOLATION_FIELDS} }
    ... on LineageCompletenessError { ${VIOLATION_FIELDS} }
    ... on LineageIntegrityError { ${VIOLATION_FIELDS} }
  }
}`;

export interface OutputLink {
  role: string;
  position: number;
  artifact: { id: string; originalName: string; artifactType: string };
}

export async function registerOperation(t: TestApp, input: Record<string, unknown>) {
  const res = await t.gql(REGISTER_OPERATION, { input });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data!.registerOperation;
}

export async function recordExecution(t: TestApp, input: Record<string, unknown>) {
  const res = await t.gql(RECORD_EXECUTION, { input });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data!.recordExecution;
}

/** Records and expects success; returns the execution with its outputs by originalName. */
export async function recordOk(t: TestApp, input: Record<string, unknown>) {
  const result = await recordExecution(t, input);
  if (result.__typename !== "RecordExecutionPayload") throw new Error(`expected success, got ${JSON.stringify(result)}`);
  const outputs: Record<string, string> = {};
  for (const link of result.execution.outputs as OutputLink[]) outputs[link.artifact.originalName] = link.artifact.id;
  return { ...result.execution, edgeCount: result.edgeCount as number, outputIds: outputs };
}

/** The two operations most recording tests use: a source of csv samples, and a csv → csv transform matched by stem. */
export const generator = { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "sample", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };
export const transform = {
  name: "transform",
  version: "1",
  kind: "CREATOR",
  inputs: [{ role: "data", artifactType: "csv" }],
  outputs: [{ role: "result", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }],
};

/** An output draft whose content hash is the SHA-256 of its name (distinct names, distinct artifacts). */
export const draft = (originalName: string) => ({ originalName, contentHash: sha256Of(originalName) });

/** Every edge in the store as [source name, target name, kind, groupId], sorted, for exact assertions. */
export async function edgesByName(t: TestApp) {
  const db = t.app.database.prisma;
  const edges = await db.provenanceEdge.findMany();
  const names = new Map((await db.artifact.findMany({ select: { id: true, originalName: true } })).map((a) => [a.id, a.originalName]));
  return edges
    .map((e) => ({ source: names.get(e.sourceId)!, target: names.get(e.targetId)!, kind: e.kind, groupId: e.groupId, runId: e.runId, stepBoundary: e.stepBoundary, sourceType: e.sourceType, targetType: e.targetType }))
    .sort((a, b) => (a.target === b.target ? (a.source < b.source ? -1 : 1) : a.target < b.target ? -1 : 1));
}

/** Row counts of every table: equal before and after a rejected mutation means nothing was written. */
export async function tableCounts(t: TestApp) {
  const db = t.app.database.prisma;
  return {
    operations: await db.operation.count(),
    operationRoles: await db.operationRole.count(),
    executions: await db.execution.count(),
    artifacts: await db.artifact.count(),
    links: await db.executionArtifact.count(),
    edges: await db.provenanceEdge.count(),
    steps: await db.pipelineStep.count(),
    flows: await db.pipelineFlow.count(),
    compositeDefinitions: await db.compositeDefinition.count(),
    compositeRuns: await db.compositeRun.count(),
    compositeStepRuns: await db.compositeStepRun.count(),
    openLineageEvents: await db.openLineageEvent.count(),
    openLineageRuns: await db.openLineageRun.count(),
    datasetVersionUses: await db.datasetVersionUse.count(),
    columnEdges: await db.columnEdge.count(),
    datasetColumns: await db.datasetColumn.count(),
    feedEvents: await db.feedEvent.count(),
  };
}

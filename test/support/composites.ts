import type { TestApp } from "./test-app";

/** GraphQL documents and helpers for composites through the API. */

export const REGISTER_COMPOSITE = `mutation($input: RegisterCompositeInput!) {
  registerComposite(input: $input) {
    __typename
    ... on CompositeDefinition { name version intermediates flags sound operation { id kind } steps { name operation { name version } when { flag equals } } wires { from to } }
    ... on Error { code message }
    ... on CompositeDeclarationError { rule step role wire candidates soundness { sound combinations { flags { flag value } sound optionToComplete properCompletion noDeadTransitions deadSteps } } }
  }
}`;

const VIOLATION_FIELDS = "rule role output outputs candidates step";

export const RECORD_COMPOSITE = `mutation($input: RecordCompositeExecutionInput!) {
  recordCompositeExecution(input: $input) {
    __typename
    ... on RecordCompositeExecutionPayload {
      edgeCount shortcutEdgeCount
      execution { runId specId status parent { runId } children { runId compositeStep } compositeRun { intermediates flags { flag value } composite { name } }
        inputs { role artifact { id originalName } } outputs { role artifact { id originalName } } }
      steps { runId compositeStep status parent { runId } operation { name } inputs { role artifact { originalName } } outputs { role artifact { id originalName } } }
      unpaired { step role position artifact { originalName } }
    }
    ... on Error { code message }
    ... on ArtifactValidationError { ${VIOLATION_FIELDS} }
    ... on LineageCompletenessError { ${VIOLATION_FIELDS} }
    ... on LineageIntegrityError { ${VIOLATION_FIELDS} }
    ... on CompositeExecutionError { rule step candidates }
  }
}`;

export async function registerComposite(t: TestApp, input: Record<string, unknown>) {
  const res = await t.gql(REGISTER_COMPOSITE, { input });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data!.registerComposite;
}

export async function recordComposite(t: TestApp, input: Record<string, unknown>) {
  const res = await t.gql(RECORD_COMPOSITE, { input });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data!.recordCompositeExecution;
}

/** Records and expects success. */
export async function recordCompositeOk(t: TestApp, input: Record<string, unknown>) {
  const result = await recordComposite(t, input);
  if (result.__typename !== "RecordCompositeExecutionPayload") throw new Error(`expected success, got ${JSON.stringify(result)}`);
  return result;
}

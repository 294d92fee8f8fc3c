import type { TestApp } from "../support/test-app";
import { CaseChecker } from "./harness/case-checker";

// The fuzz suite's judge must be able to fail: against a stub server it flags exactly the answers
// issue 13 forbids (HTTP 5xx, INTERNAL_SERVER_ERROR, an error without a code, a failure that wrote).

function stub(answer: { status: number; body: unknown }, writes = false): TestApp {
  let rows = 0;
  return {
    app: {
      yoga: {
        fetch: async () => {
          if (writes) rows += 1;
          return new Response(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json" } });
        },
      },
      database: { prisma: { $queryRawUnsafe: async () => [{ Execution: rows }] } },
    },
  } as unknown as TestApp;
}

const MUTATION = "mutation { recordExecution(input: {}) { __typename } }";
const rulesOf = async (answer: { status: number; body: unknown }, writes = false) => {
  const checker = new CaseChecker(stub(answer, writes));
  await checker.graphql("recordExecution", "recordExecution", MUTATION, {});
  return checker.failures.map((f) => f.rule);
};
const lineageRulesOf = async (answer: { status: number; body: unknown }, writes = false) => {
  const checker = new CaseChecker(stub(answer, writes));
  await checker.lineage("lineageRoutes", "/api/v1/lineage", "{}", "application/json");
  return checker.failures.map((f) => f.rule);
};

describe("the fuzz suite's case checker", () => {
  test("a typed error that wrote nothing, and a success that wrote, pass", async () => {
    expect(await rulesOf({ status: 200, body: { data: { recordExecution: { __typename: "ArtifactValidationError", code: "ARTIFACT_VALIDATION" } } } })).toEqual([]);
    expect(await rulesOf({ status: 200, body: { errors: [{ message: "x", extensions: { code: "BAD_USER_INPUT" } }] } })).toEqual([]);
    expect(await rulesOf({ status: 200, body: { data: { recordExecution: { __typename: "RecordExecutionPayload", execution: { outputs: [] } } } } }, true)).toEqual([]);
  });

  test("HTTP 500, INTERNAL_SERVER_ERROR, an error without a code, a union member without a code, a failure that wrote: each is a failure", async () => {
    expect(await rulesOf({ status: 500, body: { errors: [{ message: "boom" }] } })).toEqual(["HTTP 500"]);
    expect(await rulesOf({ status: 200, body: { errors: [{ message: "Unexpected error.", extensions: { code: "INTERNAL_SERVER_ERROR" } }] } })).toEqual(["error without a typed code (INTERNAL_SERVER_ERROR)"]);
    expect(await rulesOf({ status: 200, body: { errors: [{ message: "no code" }] } })).toEqual(["error without a typed code (undefined)"]);
    expect(await rulesOf({ status: 200, body: { data: { recordExecution: { __typename: "LineageIntegrityError" } } } })).toEqual(["result LineageIntegrityError without a typed code"]);
    expect(await rulesOf({ status: 200, body: { data: { recordExecution: { __typename: "ArtifactValidationError", code: "ARTIFACT_VALIDATION" } } } }, true)).toEqual(["a failed mutation changed table counts: Execution 0 → 1"]);
    expect(await rulesOf({ status: 200, body: "<html>" })).toEqual(["answer is not JSON"]);
  });

  test("the lineage routes: a refusal with a code passes; a 5xx, a refusal without a code or one that wrote fails", async () => {
    expect(await lineageRulesOf({ status: 400, body: { error: { code: "INVALID_EVENT" } } })).toEqual([]);
    expect(await lineageRulesOf({ status: 201, body: { status: "STORED" } }, true)).toEqual([]);
    expect(await lineageRulesOf({ status: 502, body: {} })).toEqual(["HTTP 502"]);
    expect(await lineageRulesOf({ status: 400, body: { error: {} } })).toEqual(["HTTP 400 without a typed code"]);
    expect(await lineageRulesOf({ status: 207, body: { results: [{ status: "REFUSED", error: { code: "INTERNAL_SERVER_ERROR" } }] } })).toEqual(["refused event without a typed code"]);
    expect(await lineageRulesOf({ status: 400, body: { error: { code: "INVALID_EVENT" } } }, true)).toEqual(["a refused request changed table counts: Execution 0 → 1"]);
  });
});

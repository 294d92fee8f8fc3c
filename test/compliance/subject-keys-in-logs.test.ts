import { isInputObjectType, isObjectType } from "graphql";
import { type Client, createClient } from "graphql-ws";
import WebSocket from "ws";
import { createLogger } from "../../src/logger";
import { schema } from "../../src/schema";
import { isSensitive } from "../../src/schema/sensitive";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { ERASURE_SECRET } from "../support/compliance";
import { postLineage, runEvent } from "../support/openlineage";
import { draft, registerOperation } from "../support/recording";

/**
 * No argument of an erasure or subject operation reaches the log in any form: whatever shape a
 * client sends a subject key in — a literal of the wrong type, a variable of the wrong type, inside
 * a nested input, in a document that does not parse, over HTTP or graphql-ws — the caller may read
 * it back in the error, but no log line (at the most talkative level) holds it.
 */

// A key as a client might send it: digits (so it is also a valid Int literal), and distinctive.
const KEY = "4711000417";

const RECORD = (subjectKeys: string) =>
  `mutation { recordExecution(input: { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [{ originalName: "c.csv", contentHash: "${draft("c.csv").contentHash}", subjectKeys: ${subjectKeys} }] }] }) { __typename } }`;

/** Each shape: a name, the document, its variables, the code the caller gets. */
const SHAPES: [string, string, Record<string, unknown> | undefined, string][] = [
  ["an unquoted number", `mutation { erasurePlan(subjectKey: ${KEY}) { id } }`, undefined, "GRAPHQL_VALIDATION_FAILED"],
  ["a name where a string belongs", `mutation { erasurePlan(subjectKey: K${KEY}) { id } }`, undefined, "GRAPHQL_VALIDATION_FAILED"],
  ["a list literal", `mutation { erasurePlan(subjectKey: ["${KEY}"]) { id } }`, undefined, "GRAPHQL_VALIDATION_FAILED"],
  ["an object literal", `mutation { erasurePlan(subjectKey: { key: "${KEY}" }) { id } }`, undefined, "GRAPHQL_VALIDATION_FAILED"],
  ["the key in the plan's other argument", `mutation { erasurePlan(subjectKey: "x", kThreshold: "${KEY}") { id } }`, undefined, "GRAPHQL_VALIDATION_FAILED"],
  ["the key as a too large kThreshold", `mutation { erasurePlan(subjectKey: "x", kThreshold: ${KEY}0) { id } }`, undefined, "GRAPHQL_VALIDATION_FAILED"],
  ["a variable holding a number", `mutation($k: String!) { erasurePlan(subjectKey: $k) { id } }`, { k: Number(KEY) }, "BAD_USER_INPUT"],
  ["a variable holding an object", `mutation($k: String!) { erasurePlan(subjectKey: $k) { id } }`, { k: { nested: [KEY] } }, "BAD_USER_INPUT"],
  ["a variable of the wrong type", `mutation($k: Int!) { erasurePlan(subjectKey: $k) { id } }`, { k: KEY }, "GRAPHQL_VALIDATION_FAILED"],
  ["a variable of the wrong type, alone", `mutation($k: Int!) { erasurePlan(subjectKey: "x", kThreshold: $k) { id } }`, { k: KEY }, "BAD_USER_INPUT"],
  ["a nested input's number literal", RECORD(KEY), undefined, "GRAPHQL_VALIDATION_FAILED"],
  ["a nested input's object literal", RECORD(`[{ key: "${KEY}" }]`), undefined, "GRAPHQL_VALIDATION_FAILED"],
  [
    "a nested input variable of the wrong shape",
    `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`,
    { input: { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [{ ...draft("c.csv"), subjectKeys: [{ key: KEY }] }] }] } },
    "BAD_USER_INPUT",
  ],
  ["a document that does not parse (a missing colon)", `mutation { erasurePlan(subjectKey ${KEY}) { id } }`, undefined, "GRAPHQL_PARSE_FAILED"],
  ["a document that does not parse (a string where a name belongs)", `mutation { erasurePlan("${KEY}") { id } }`, undefined, "GRAPHQL_PARSE_FAILED"],
  ["a key too long to plan", `mutation { erasurePlan(subjectKey: "${KEY.repeat(200)}") { id } }`, undefined, "INVALID_ARGUMENT"],
];

describe("subject keys never reach the log", () => {
  let t: TokenTestApp;
  let url: string;
  const log: string[] = [];

  beforeAll(async () => {
    const logger = createLogger("trace", { write: (line: string) => void log.push(line) });
    t = await createTokenTestApp({ env: { PROVGRAPH_ERASURE_SECRET: ERASURE_SECRET }, app: { logger } });
    url = await t.app.start();
    await registerOperation(t, { name: "extract", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
  });
  afterAll(() => t.close());

  const linesHolding = (from: number, text: string) => log.slice(from).filter((line) => line.includes(text));

  describe("over HTTP", () => {
    test.each(SHAPES)("%s: the caller is told, the log keeps the code and where, never the key", async (_name, query, variables, code) => {
      const from = log.length;
      const answer = await t.gqlAs(t.adminToken, query, variables);
      expect(answer.errors?.[0]?.extensions?.code).toBe(code);
      expect(linesHolding(from, "request answered with client errors")).toHaveLength(1);
      expect(linesHolding(from, KEY)).toEqual([]);
    });
  });

  describe("over graphql-ws", () => {
    let client: Client;
    beforeAll(() => {
      client = createClient({ url: url.replace("http", "ws"), webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${t.adminToken}` }, retryAttempts: 0, lazy: true });
    });
    afterAll(() => client.dispose());

    test.each(SHAPES)("%s", async (_name, query, variables) => {
      const from = log.length;
      await new Promise<void>((resolve) => client.subscribe({ query, variables }, { next: () => undefined, error: () => resolve(), complete: () => resolve() }));
      expect(linesHolding(from, "request answered with client errors")).toHaveLength(1);
      expect(linesHolding(from, KEY)).toEqual([]);
    });
  });

  test("what the log keeps instead: the argument, the code and where; a message about anything else is kept whole", async () => {
    const logged = async (query: string) => {
      const from = log.length;
      await t.gqlAs(t.adminToken, query);
      return log.slice(from).map((line) => JSON.parse(line)).find((line) => line.msg === "request answered with client errors").first.message;
    };
    expect(await logged(`mutation { erasurePlan(subjectKey: ${KEY}) { id } }`)).toBe(
      "erasurePlan(subjectKey:): the value given was refused (GRAPHQL_VALIDATION_FAILED); values of sensitive arguments are not logged (line 1, column 36)",
    );
    expect(await logged(RECORD(`[{ key: "${KEY}" }]`))).toMatch(/^ArtifactDraftInput\.subjectKeys: the value given was refused \(GRAPHQL_VALIDATION_FAILED\); values of sensitive arguments are not logged \(line 1, column \d+\)$/);
    expect(await logged(`mutation { erasurePlan(subjectKey ${KEY}) { id } }`)).toBe('Syntax Error: Expected ":", found Int "…". (line 1, column 35)');
    expect(await logged(`mutation { erasurePlan(subjectKey: "x", nope: 1) { id } }`)).toBe('Unknown argument "nope" on field "Mutation.erasurePlan".');
  });

  test("every argument of an erasure operation, and every argument or input field holding subject keys, is declared sensitive", () => {
    const sensitive: string[] = [];
    const undeclared: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith("__")) continue;
      if (isObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          for (const arg of field.args) {
            const coordinate = `${type.name}.${field.name}(${arg.name}:)`;
            if (isSensitive(arg)) sensitive.push(coordinate);
            else if (/subject|erasure/i.test(`${field.name} ${arg.name}`) && type.name === "Mutation") undeclared.push(coordinate);
          }
        }
      }
      if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          const coordinate = `${type.name}.${field.name}`;
          if (isSensitive(field)) sensitive.push(coordinate);
          else if (/subjectKey/i.test(field.name)) undeclared.push(coordinate);
        }
      }
    }
    expect(undeclared).toEqual([]);
    expect(sensitive.sort()).toEqual(["ArtifactDraftInput.subjectKeys", "Mutation.erasurePlan(kThreshold:)", "Mutation.erasurePlan(subjectKey:)", "Mutation.executeErasure(planId:)"]);
  });

  test("an OpenLineage event declaring subjects in a wrong shape: refused, and the key is not logged", async () => {
    const from = log.length;
    const event = runEvent({ outputs: [{ namespace: "crm", name: "customers", facets: { provgraph_dataSubjects: { keys: [{ key: KEY }], _producer: "x", _schemaURL: "https://x/y.json" } } }] });
    const answer = await postLineage(t, JSON.stringify(event), { "content-type": "application/json", authorization: `Bearer ${t.adminToken}` });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(linesHolding(from, KEY)).toEqual([]);
  });
});

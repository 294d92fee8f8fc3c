import { auditTrail, createTokenTestApp, type TokenTestApp } from "../support/auth";
import { draft, RECORD_EXECUTION, REGISTER_OPERATION } from "../support/recording";
import { testProvider } from "../support/test-database";

const GEN = { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };
const TRANSFORM = { name: "transform", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] };

describe("the audit trail", () => {
  let t: TokenTestApp;
  let write: string;
  let read: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTokenTestApp();
    write = await t.issue(["write"], { name: "ci" });
    read = await t.issue(["read"], { name: "dashboard" });
    // A script of admin work and token writes, successes and failures.
    ids.gen = (await t.gql(REGISTER_OPERATION, { input: GEN })).data!.registerOperation.id;
    ids.transform = (await t.gql(REGISTER_OPERATION, { input: TRANSFORM })).data!.registerOperation.id;
    const conflicting = await t.gql(REGISTER_OPERATION, { input: { ...GEN, kind: "CURATOR" } });
    expect(conflicting.data!.registerOperation.__typename).toBe("OperationDeclarationError");
    const raw = await t.gqlAs(write, RECORD_EXECUTION, { input: { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [draft("s1.csv")] }] } });
    ids.run = raw.data!.recordExecution.execution.runId;
    ids.s1 = raw.data!.recordExecution.execution.outputs[0].artifact.id;
    const unmatched = await t.gqlAs(write, RECORD_EXECUTION, { input: { operation: "transform", operationVersion: "1", inputs: [{ role: "data", artifactIds: [ids.s1] }], outputs: [{ role: "out", artifacts: [draft("zzz.csv")] }] } });
    expect(unmatched.data!.recordExecution.__typename).toBe("LineageCompletenessError");
    const unknownOperation = await t.gqlAs(write, RECORD_EXECUTION, { input: { operation: "nope", operationVersion: "1", inputs: [], outputs: [] } });
    expect(unknownOperation.errors![0].extensions!.code).toBe("NOT_FOUND");
    await t.gqlAs(read, RECORD_EXECUTION, { input: { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [draft("s2.csv")] }] } });
    ids.token = (await t.gql(`mutation { createApiToken(input: { name: "later", scopes: ["read"] }) { apiToken { id } } }`)).data!.createApiToken.apiToken.id;
    await t.gql(`mutation { revokeApiToken(id: "${ids.token}") { id } }`);
  });
  afterAll(() => t.close());

  test("records who, what (the mutation and the ids it touched), how it ended — each admin mutation and each token write", async () => {
    expect(await auditTrail(t)).toEqual([
      { actor: "PROVGRAPH_BOOTSTRAP_TOKEN", via: "STARTUP", action: "createApiToken", targets: [expect.stringMatching(/^tok_/)], outcome: "OK" },
      { actor: "bootstrap", via: "HTTP", action: "registerOperation", targets: [ids.gen], outcome: "OK" },
      { actor: "bootstrap", via: "HTTP", action: "registerOperation", targets: [ids.transform], outcome: "OK" },
      { actor: "bootstrap", via: "HTTP", action: "registerOperation", targets: [], outcome: "OPERATION_DECLARATION" },
      { actor: "ci", via: "HTTP", action: "recordExecution", targets: [ids.run], outcome: "OK" },
      { actor: "ci", via: "HTTP", action: "recordExecution", targets: [], outcome: "LINEAGE_COMPLETENESS" },
      { actor: "ci", via: "HTTP", action: "recordExecution", targets: [], outcome: "NOT_FOUND" },
      { actor: "dashboard", via: "HTTP", action: "recordExecution", targets: [], outcome: "FORBIDDEN" },
      { actor: "bootstrap", via: "HTTP", action: "createApiToken", targets: [ids.token], outcome: "OK" },
      { actor: "bootstrap", via: "HTTP", action: "revokeApiToken", targets: [ids.token], outcome: "OK" },
    ]);
  });

  test("auditLog (admin) pages through it newest first, as a Relay connection", async () => {
    const QUERY = `query($first: Int, $after: String, $last: Int, $before: String) {
      auditLog(first: $first, after: $after, last: $last, before: $before) {
        edges { cursor node { id at actor tokenId via action targets outcome requestId } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }`;
    const first = await t.gql(QUERY, { first: 3 });
    const page = first.data!.auditLog;
    expect(page.edges.map((e: any) => [e.node.action, e.node.outcome])).toEqual([["revokeApiToken", "OK"], ["createApiToken", "OK"], ["recordExecution", "FORBIDDEN"]]);
    expect(page.edges[2].node).toEqual({ id: 8, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), actor: "dashboard", tokenId: expect.stringMatching(/^tok_/), via: "HTTP", action: "recordExecution", targets: [], outcome: "FORBIDDEN", requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(page.pageInfo.hasNextPage).toBe(true);
    const rest = await t.gql(QUERY, { first: 500, after: page.pageInfo.endCursor });
    expect(rest.data!.auditLog.edges.map((e: any) => e.node.id)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(rest.data!.auditLog.pageInfo.hasNextPage).toBe(false);
    const back = await t.gql(QUERY, { last: 2, before: page.pageInfo.endCursor });
    expect(back.data!.auditLog.edges.map((e: any) => e.node.id)).toEqual([10, 9]);
    expect((await t.gql(QUERY, { first: 501 })).errors![0].extensions!.code).toBe("PAGE_SIZE");
    expect((await t.gql(QUERY, { after: "bm90LWEtY3Vyc29y" })).errors![0].extensions!.code).toBe("INVALID_CURSOR");
  });

  test("the table is append-only: the database refuses UPDATE and DELETE", async () => {
    const db = t.app.database.prisma;
    const count = await db.auditEvent.count();
    await expect(db.$executeRawUnsafe(`UPDATE "AuditEvent" SET "outcome" = 'OK'`)).rejects.toThrow(/AuditEvent is append-only/);
    await expect(db.$executeRawUnsafe(`DELETE FROM "AuditEvent"`)).rejects.toThrow(/AuditEvent is append-only/);
    if (testProvider === "postgres") await expect(db.$executeRawUnsafe(`TRUNCATE "AuditEvent"`)).rejects.toThrow(/AuditEvent is append-only/);
    expect(await db.auditEvent.count()).toBe(count);
    expect((await auditTrail(t)).map((event) => event.outcome).filter((outcome) => outcome === "OK")).toHaveLength(6);
  });

  test("a token's recording takes its audit entry into its own transaction: no second commit", async () => {
    const append = jest.spyOn(t.app.auth.audit, "append");
    const recorded = await t.gqlAs(write, RECORD_EXECUTION, { input: { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [draft("s3.csv")] }] } });
    const runId = recorded.data!.recordExecution.execution.runId;
    expect(append).toHaveBeenCalledTimes(1);
    const [event, db] = append.mock.calls[0];
    expect(event).toMatchObject({ actor: "ci", action: "recordExecution", targets: [runId], outcome: "OK" });
    expect(db).not.toBe(t.app.database.prisma); // the recording's transaction client
    append.mockRestore();
  });
});

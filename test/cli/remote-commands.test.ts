import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { compileValidators, OpenLineageSchema } from "../../src/openlineage/schema-validator";
import { type CliServer, ensureBuilt, runCli, startCliServer } from "../support/cli";
import { freePort } from "../support/free-port";
import { fixtureFiles, runEvent, withBaseFields } from "../support/openlineage";
import { createTestDatabaseUrl } from "../support/test-database";

/**
 * The real `provgraph` command against a real server (`provgraph serve`, a process of its own), as a
 * script would run them: the remote commands, their output and their documented exit codes.
 */
const ERASURE_SECRET = "an-erasure-secret-of-at-least-32-characters";
const TOUR = fs.readFileSync(path.join(__dirname, "..", "..", "README.md"), "utf8").match(/```graphql\n(mutation Record[\s\S]*?)```/)![1];
const PARQUET_A = "art_9c6ec26e20ae3bb0a61d8d5a0905f3d570532266";
const CSV_A = "art_93288de15f89bede8a558de658cc1f7f42d3c0e1";

// Each test runs the real command several times: seconds each on a busy machine.
jest.setTimeout(600_000);

describe("provgraph, the command, against a running server", () => {
  let database: { url: string; drop: () => Promise<void> };
  let server: CliServer;
  let dir: string;
  let env: Record<string, string>;
  let admin: string;
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${admin}` }, body: JSON.stringify({ query, variables }) });
    return (await response.json()) as { data?: any; errors?: any[] };
  };

  beforeAll(async () => {
    ensureBuilt();
    database = await createTestDatabaseUrl();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-cli-"));
    // a token first, made by the local command on the server's database: the server then requires tokens
    const created = await runCli(["token", "create", "--scope", "admin", "--name", "cli-test"], { DATABASE_URL: database.url });
    expect(created.code).toBe(0);
    admin = created.stdout.trim();
    server = await startCliServer({ DATABASE_URL: database.url, PROVGRAPH_ERASURE_SECRET: ERASURE_SECRET });
    env = { PROVGRAPH_URL: server.url, PROVGRAPH_TOKEN: admin };
    expect((await gql(TOUR)).errors).toBeUndefined();
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("ingest: the OpenLineage fixtures as arrays, NDJSON and single events; stored, then duplicates (exit 0); the refused ones with their reasons (exit 1)", async () => {
    const schema = new OpenLineageSchema(compileValidators().kinds);
    const valid: string[] = [];
    const refused: Record<string, unknown>[] = [];
    fixtureFiles().forEach(({ file, events }, i) => {
      const prepared = events.map(withBaseFields);
      const good = prepared.filter((event) => schema.validate(event) === null);
      refused.push(...prepared.filter((event) => schema.validate(event) !== null));
      if (good.length === 0) return;
      // the three shapes the command reads: an array, NDJSON, one event
      const name = path.join(dir, `valid-${i}${i % 3 === 1 ? ".ndjson" : ".json"}`);
      if (i % 3 === 1) fs.writeFileSync(name, `${good.map((event) => JSON.stringify(event)).join("\n")}\n`);
      else if (i % 3 === 2 && good.length === 1) fs.writeFileSync(name, JSON.stringify(good[0], null, 2));
      else fs.writeFileSync(name, JSON.stringify(good));
      valid.push(name);
    });
    // The fixtures the OpenLineage schema accepts (format violations are warnings, not refusals).
    const events = 501;
    expect(refused).toHaveLength(626 - events);

    const first = await runCli(["ingest", "--batch-size", "100", ...valid], env);
    expect([first.code, first.stdout, first.stderr]).toEqual([0, `${events} events from ${valid.length} files: ${events} stored, 0 duplicates, 0 refused\n`, ""]);
    const again = await runCli(["ingest", ...valid], env);
    expect([again.code, again.stdout]).toEqual([0, `${events} events from ${valid.length} files: 0 stored, ${events} duplicates, 0 refused\n`]);

    fs.writeFileSync(path.join(dir, "refused.json"), JSON.stringify(refused));
    const bad = await runCli(["ingest", path.join(dir, "refused.json"), "--max-reasons", "3"], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout.split("\n")).toEqual([
      `${refused.length} events from 1 file: 0 stored, 0 duplicates, ${refused.length} refused`,
      ...[0, 1, 2].map((i) => expect.stringMatching(new RegExp(`^  refused .*refused\\.json\\[${i}\\]: INVALID_EVENT /\\S*: .+`))),
      `  … and ${refused.length - 3} more refused (--max-reasons, or --json for all)`,
      "",
    ]);
    const json = await runCli(["ingest", path.join(dir, "refused.json"), "--json"], env);
    const summary = JSON.parse(json.stdout);
    expect([json.code, summary.refused, summary.refusals.length, summary.refusals[0]]).toEqual([
      1,
      refused.length,
      refused.length,
      { where: expect.stringMatching(/refused\.json\[0\]$/), code: "INVALID_EVENT", pointer: expect.any(String), reason: expect.any(String) },
    ]);
  });

  test("ingest: a file that is not JSON is exit 5 and nothing of the command's files is sent; stdin is read with -", async () => {
    const fresh = runEvent({ job: { namespace: "cli", name: "fresh" } });
    fs.writeFileSync(path.join(dir, "fresh.json"), JSON.stringify(fresh));
    fs.writeFileSync(path.join(dir, "broken.ndjson"), `${JSON.stringify(runEvent())}\n{"eventType": \n`);
    const broken = await runCli(["ingest", path.join(dir, "fresh.json"), path.join(dir, "broken.ndjson")], env);
    expect([broken.code, broken.stdout, broken.stderr]).toEqual([5, "", expect.stringMatching(/^provgraph: .*broken\.ndjson:2 is not JSON: .+\n$/)]);
    const missing = await runCli(["ingest", path.join(dir, "nowhere.json")], env);
    expect([missing.code, missing.stderr]).toEqual([5, `provgraph: cannot read ${path.join(dir, "nowhere.json")}: no such file\n`]);
    // fresh.json was not sent: it is stored now, not a duplicate
    const stdin = await runCli(["ingest", "-"], env, { stdin: JSON.stringify(fresh) });
    expect([stdin.code, stdin.stdout]).toEqual([0, "1 event from 1 file: 1 stored, 0 duplicates, 0 refused\n"]);
  });

  test("ingest: a directory sends the .json, .ndjson and .jsonl files below it, in path order; one holding none is exit 5", async () => {
    const events = path.join(dir, "events");
    fs.mkdirSync(path.join(events, "2026-12-02"), { recursive: true });
    fs.mkdirSync(path.join(events, ".trash"));
    const a = runEvent({ job: { namespace: "cli-dir", name: "a" } });
    const b = runEvent({ job: { namespace: "cli-dir", name: "b" } });
    const c = runEvent({ job: { namespace: "cli-dir", name: "c" } });
    fs.writeFileSync(path.join(events, "one.json"), JSON.stringify(a));
    fs.writeFileSync(path.join(events, "2026-12-02", "more.ndjson"), `${JSON.stringify(b)}\n${JSON.stringify(c)}\n`);
    fs.writeFileSync(path.join(events, "README.md"), "not events");
    fs.writeFileSync(path.join(events, ".trash", "old.json"), "{ broken");
    const sent = await runCli(["ingest", "--json", events], env);
    expect(sent.code).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ events: 3, files: 2, stored: 3, refused: 0 });
    const empty = path.join(dir, "no-events");
    fs.mkdirSync(empty);
    fs.writeFileSync(path.join(empty, "notes.txt"), "");
    const none = await runCli(["ingest", empty], env);
    expect([none.code, none.stdout, none.stderr]).toEqual([5, "", `provgraph: ${empty} is a directory that holds no .json, .ndjson or .jsonl file\n`]);
  });

  test("lineage: table, json, dot and prov-json; up, down and both", async () => {
    const table = await runCli(["lineage", PARQUET_A], env);
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")).toEqual([
      `${PARQUET_A}  sample_a.parquet (parquet)`,
      "",
      "DIRECTION  DEPTH  ARTIFACT                                      TYPE  NAME",
      `upstream   1      ${CSV_A}  csv   sample_a.csv`,
      "",
      expect.stringMatching(/^SOURCE\s+TARGET\s+KIND\s+RUN$/),
      expect.stringMatching(/^sample_a\.csv\s+sample_a\.parquet\s+INDEPENDENT\s+run_[0-9a-f-]{36}$/),
      "",
    ]);

    const down = await runCli(["lineage", CSV_A, "--down", "--format", "json"], env);
    expect(down.code).toBe(0);
    expect(JSON.parse(down.stdout)).toEqual({
      root: { id: CSV_A, artifactType: "csv", originalName: "sample_a.csv" },
      downstream: {
        truncated: false,
        nodes: [{ depth: 1, artifact: { id: PARQUET_A, artifactType: "parquet", originalName: "sample_a.parquet" } }],
        edges: [{ sourceId: CSV_A, targetId: PARQUET_A, kind: "INDEPENDENT", groupId: expect.stringMatching(/^grp_/), runId: expect.stringMatching(/^run_/) }],
      },
    });

    const both = await runCli(["lineage", PARQUET_A, "--both", "--depth", "1", "--format", "dot"], env);
    expect([both.code, both.stdout]).toEqual([
      0,
      [
        "digraph lineage {",
        "  rankdir=LR;",
        "  node [shape=box, fontname=Helvetica];",
        `  "${PARQUET_A}" [label="sample_a.parquet\\nparquet", style=bold];`,
        `  "${CSV_A}" [label="sample_a.csv\\ncsv"];`,
        `  "${CSV_A}" -> "${PARQUET_A}" [label="INDEPENDENT"];`,
        "}",
        "",
      ].join("\n"),
    ]);

    const prov = await runCli(["lineage", PARQUET_A, "--both", "--format", "prov-json"], env);
    const document = JSON.parse(prov.stdout);
    expect(prov.code).toBe(0);
    expect(Object.keys(document.entity).sort()).toEqual([`provgraph:${CSV_A}`, `provgraph:${PARQUET_A}`]);
    expect(Object.keys(document.activity)).toHaveLength(2);
    expect(Object.values(document.wasDerivedFrom)).toEqual([expect.objectContaining({ "prov:generatedEntity": `provgraph:${PARQUET_A}`, "prov:usedEntity": `provgraph:${CSV_A}` })]);
  });

  test("lineage: an unknown artifact is exit 6 with the server's code; a bad option is exit 2", async () => {
    const unknown = await runCli(["lineage", `art_${"0".repeat(40)}`], env);
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([6, "", expect.stringMatching(/^provgraph: NOT_FOUND: .* \(artifactId\)\n$/)]);
    const wrongKind = await runCli(["lineage", "run_01a23083-05cc-724b-8d36-04e215ad46e4"], env);
    expect([wrongKind.code, wrongKind.stderr]).toEqual([6, expect.stringMatching(/^provgraph: INVALID_ID: /)]);
    const format = await runCli(["lineage", PARQUET_A, "--format", "svg"], env);
    expect([format.code, format.stderr]).toEqual([2, expect.stringMatching(/^error: option '--format <format>' argument 'svg' is invalid\. Allowed choices are table, json, dot, prov-json\.\n/)]);
    const directions = await runCli(["lineage", PARQUET_A, "--up", "--down"], env);
    expect([directions.code, directions.stderr]).toEqual([2, "provgraph: choose one of --up, --down and --both\n"]);
  });

  test("search: hits best first as a table or JSON, restricted by kind; nothing found is still exit 0", async () => {
    const table = await runCli(["search", "sample_a", "--kind", "artifact"], env);
    expect([table.code, table.stderr]).toEqual([0, ""]);
    expect(table.stdout.split("\n")).toEqual([
      expect.stringMatching(/^KIND\s+ID\s+LABEL\s+DETAIL$/),
      expect.stringMatching(new RegExp(`^ARTIFACT\\s+${CSV_A}\\s+sample_a\\.csv\\s+csv`)),
      expect.stringMatching(new RegExp(`^ARTIFACT\\s+${PARQUET_A}\\s+sample_a\\.parquet\\s+parquet`)),
      "",
    ]);

    const json = await runCli(["search", "sample_a.parq", "--kind", "artifact", "--json"], env);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ totalCount: 1, hits: [expect.objectContaining({ kind: "ARTIFACT", id: PARQUET_A, label: "sample_a.parquet", rank: "PREFIX" })] });

    const limited = await runCli(["search", "sample", "--kind", "artifact", "--first", "1"], env);
    expect([limited.code, limited.stdout.split("\n").length, limited.stderr]).toEqual([0, 3, expect.stringMatching(/^1 of \d+ matches shown \(--first\)\n$/)]);

    const none = await runCli(["search", "no-such-thing-anywhere"], env);
    expect([none.code, none.stdout]).toEqual([0, "nothing matches 'no-such-thing-anywhere'\n"]);
    const kind = await runCli(["search", "sample", "--kind", "planet"], env);
    expect([kind.code, kind.stderr]).toEqual([2, "provgraph: --kind 'planet' is not one of artifact, dataset, column, job, pipeline, run, policy_tag\n"]);
  });

  test("evidence: the package is written as served (sha256 as shown), exit 1 when not provable; --verify exit 0 when the store agrees, 1 when the file was changed, 5 when it is no package", async () => {
    const file = path.join(dir, "evidence.json");
    const filed = await runCli(["evidence", PARQUET_A, "-o", file], env);
    const sha256 = crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
    // the tour recorded no determinism or image pins: not provable
    expect([filed.code, filed.stdout, filed.stderr.split("\n")[0]]).toEqual([1, "", expect.stringMatching(new RegExp(`^not provable: sha256 ${sha256}, \\d+ violations?, written to ${file}$`))]);
    expect(filed.stderr).toMatch(/\n  DETERMINISM_UNKNOWN \(run_/);

    const verified = await runCli(["evidence", "--verify", file], env);
    expect([verified.code, verified.stdout]).toEqual([0, `valid: the store gives the same document (sha256 ${sha256})\n`]);

    const changed = JSON.parse(fs.readFileSync(file, "utf8"));
    changed.provable = true;
    fs.writeFileSync(path.join(dir, "changed.json"), JSON.stringify(changed));
    const refused = await runCli(["evidence", "--verify", path.join(dir, "changed.json")], env);
    expect([refused.code, refused.stdout.split("\n")[0], refused.stdout]).toEqual([1, expect.stringMatching(/^not valid: the store gives sha256 [0-9a-f]{64}, the file has sha256 [0-9a-f]{64}$/), expect.stringContaining("  differs at /provable\n")]);

    fs.writeFileSync(path.join(dir, "not-json.json"), "provgraph");
    const bad = await runCli(["evidence", "--verify", path.join(dir, "not-json.json")], env);
    expect([bad.code, bad.stderr]).toEqual([5, expect.stringMatching(/^provgraph: .*not-json\.json is not an evidence package: /)]);
  });

  test("erasure-plan: the plan of a subject (the key also from stdin), recorded by the server", async () => {
    const recorded = await gql(`mutation {
      registerOperation(input: { name: "crm-export", version: "1", kind: CREATOR, inputs: [], outputs: [{ role: "rows", artifactType: "csv", inferLineageFrom: { inputs: [] } }] }) { __typename }
      recordExecution(input: { operation: "crm-export", operationVersion: "1", inputs: [], outputs: [{ role: "rows", artifacts: [{ originalName: "customers.csv", contentHash: "sha256:${"c".repeat(64)}", subjectKeys: ["customer-42"] }] }] }) { __typename }
    }`);
    expect(recorded.errors).toBeUndefined();
    const plan = await runCli(["erasure-plan", "customer-42"], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout.split("\n")).toEqual([
      expect.stringMatching(/^erasure plan \S+ \(PLANNED, k = 50\): 1 root, 0 derived artifacts$/),
      expect.stringMatching(/^ACTION\s+DEPTH\s+ARTIFACT\s+NAME\s+DUE\s+WHY$/),
      expect.stringMatching(/^DELETE_RECORDS\s+0\s+art_[0-9a-f]{40}\s+customers\.csv\s+\d{4}-\d\d-\d\d\s+DECLARED_SUBJECT$/),
      expect.stringMatching(/^then INSERT_TOMBSTONE hmac-sha256:[0-9a-f]{64} on suppression_list$/),
      "",
    ]);
    expect(plan.stdout).not.toContain("customer-42");
    const fromStdin = await runCli(["erasure-plan", "-", "--json"], env, { stdin: "customer-42\n" });
    expect([fromStdin.code, JSON.parse(fromStdin.stdout).roots.length]).toEqual([0, 1]);
  });

  test("integrity: the server's report, 0 violations, exit 0", async () => {
    const report = await runCli(["integrity"], env);
    expect([report.code, report.stdout.split("\n").slice(-2)]).toEqual([0, ["0 violations", ""]]);
    expect(report.stdout).toMatch(/^INVARIANT\s+CHECKED\s+VIOLATIONS\nexecution-rows\s+\d+\s+0\n/);
  });

  test("credentials and addresses: no token, a bad one or one without the scope is exit 4; a closed port exit 3; not a URL exit 2", async () => {
    const none = await runCli(["lineage", PARQUET_A], { PROVGRAPH_URL: server.url });
    expect([none.code, none.stderr]).toEqual([4, expect.stringMatching(/^provgraph: UNAUTHENTICATED: .* \(give one with --token or PROVGRAPH_TOKEN\)\n$/)]);
    const bad = await runCli(["lineage", PARQUET_A, "--token", `pgt_${"x".repeat(43)}`], { PROVGRAPH_URL: server.url });
    expect([bad.code, bad.stderr]).toEqual([4, expect.stringMatching(/^provgraph: UNAUTHENTICATED: /)]);
    expect(bad.stderr).not.toContain("x".repeat(43));
    const reader = (await runCli(["token", "create", "--scope", "read", "--name", "reader"], { DATABASE_URL: database.url })).stdout.trim();
    fs.writeFileSync(path.join(dir, "one.json"), JSON.stringify(runEvent()));
    const forbidden = await runCli(["ingest", path.join(dir, "one.json")], { PROVGRAPH_URL: server.url, PROVGRAPH_TOKEN: reader });
    expect([forbidden.code, forbidden.stderr]).toEqual([4, expect.stringMatching(/^provgraph: FORBIDDEN: .*write/)]);

    const closed = await freePort();
    const unreachable = await runCli(["integrity", "--url", `http://127.0.0.1:${closed}`], { PROVGRAPH_TOKEN: admin });
    expect([unreachable.code, unreachable.stderr]).toEqual([3, `provgraph: cannot reach provgraph at http://127.0.0.1:${closed}: connection refused (is the server running?)\n`]);
    const page = http.createServer((_request, response) => response.writeHead(200, { "content-type": "text/html" }).end("<h1>not provgraph</h1>"));
    await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
    try {
      const notProvgraph = await runCli(["integrity", "--url", `http://127.0.0.1:${(page.address() as AddressInfo).port}`], { PROVGRAPH_TOKEN: admin });
      expect([notProvgraph.code, notProvgraph.stderr]).toEqual([3, expect.stringMatching(/^provgraph: http:\/\/127\.0\.0\.1:\d+ is not a provgraph server \(HTTP 200, text\/html\)\n$/)]);
    } finally {
      await new Promise((resolve) => page.close(resolve));
    }
    // A path before /graphql (a proxy's prefix given to a server that has none): the server's 404 says where the API is.
    const prefixed = await runCli(["integrity", "--url", `${server.url}/provgraph`], { PROVGRAPH_TOKEN: admin });
    expect([prefixed.code, prefixed.stderr]).toEqual([
      3,
      `provgraph: ${server.url}/provgraph answered no data (HTTP 404): NOT_FOUND: nothing is served at POST /provgraph/graphql: the GraphQL API is at /graphql, the Explorer at /explorer/, OpenLineage events go to POST /api/v1/lineage (docs/api.md lists the routes)\n`,
    ]);
    const notUrl = await runCli(["integrity", "--url", "provgraph.example"], { PROVGRAPH_TOKEN: admin });
    expect([notUrl.code, notUrl.stderr]).toEqual([2, "provgraph: --url 'provgraph.example' is not a URL: expected e.g. http://127.0.0.1:4000\n"]);
  });
});

describe("provgraph --help and usage", () => {
  beforeAll(() => ensureBuilt(), 900_000);

  test("every command has its help, exit 0; the exit codes are in the main help", async () => {
    const main = await runCli(["--help"]);
    expect(main.code).toBe(0);
    expect(main.stdout).toContain("Exit codes:\n  0  done\n  1  done, with findings");
    const commands = ["serve", "migrate", "token", "ingest", "lineage", "search", "evidence", "erasure-plan", "integrity", "backup", "restore"];
    for (const command of commands) expect(main.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
    for (const command of [...commands, "token create", "token list", "token revoke", "token generate"]) {
      const help = await runCli([...command.split(" "), "--help"]);
      expect([command, help.code, help.stdout.split("\n")[0]]).toEqual([command, 0, expect.stringMatching(new RegExp(`^Usage: provgraph ${command}\\b`))]);
    }
  });

  test("no command, an unknown one or a missing argument is exit 2 with the usage", async () => {
    const none = await runCli([]);
    expect([none.code, none.stdout, none.stderr]).toEqual([2, "", expect.stringMatching(/^Usage: provgraph \[options\] \[command\]/)]);
    const unknown = await runCli(["lineages"]);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringMatching(/^error: unknown command 'lineages'\n\(Did you mean lineage\?\)/)]);
    const missing = await runCli(["lineage"]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/^error: missing required argument 'artifactId'/)]);
    expect((await runCli(["--version"])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

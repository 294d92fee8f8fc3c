import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fencedBlocks } from "../support/doc-walkthrough";
import { ensureBuilt, runCli, startCliServer } from "../support/cli";
import { freePort } from "../support/free-port";

/**
 * The PostgreSQL guide (docs/operating/postgresql.md) and the PostgreSQL half of the backup guide
 * (docs/operating/backups.md) work as written on Debian's postgresql: their commands run here, on a
 * cluster of Debian's own (pg_createcluster) on a free port, as root with `sudo` standing for runuser.
 * Only the port differs from the page (PGPORT, and 5432 in the URLs). Needs Debian's postgresql
 * packages and root (CI installs them); run once, on the SQLite pass.
 */
const ROOT = path.join(__dirname, "..", "..");
const shellBlocks = (page: string) => fencedBlocks(fs.readFileSync(path.join(ROOT, page), "utf8"), page).filter((block) => block.lang === "sh");
const SUDO = `sudo() { if [ "$1" = -u ]; then local user="$2"; shift 2; runuser -u "$user" -- "$@"; else "$@"; fi; }`;

describe("the PostgreSQL guides, run as written", () => {
  const version = fs.existsSync("/usr/lib/postgresql") ? fs.readdirSync("/usr/lib/postgresql").sort((a, b) => Number(a) - Number(b)).pop() : undefined;
  const cluster = `guide${process.pid}`;
  let port: number;
  let dir: string;
  const bash = (script: string, env: Record<string, string> = {}) => {
    const answer = spawnSync("bash", ["-c", `set -euo pipefail\n${SUDO}\n${script}`], { cwd: dir, env: { ...process.env, PGPORT: String(port), ...env }, encoding: "utf8" });
    if (answer.status !== 0) throw new Error(`the guide's commands failed (${answer.status}):\n${script}\n${answer.stdout}\n${answer.stderr}`);
    return answer.stdout;
  };

  beforeAll(async () => {
    if (!version || process.getuid?.() !== 0) throw new Error("this test needs Debian's postgresql packages (apt-get install postgresql) and root, as CI has");
    ensureBuilt();
    port = await freePort();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-pg-guide-"));
    fs.chmodSync(dir, 0o755);
    // what `apt-get install postgresql` and `service postgresql start` give, on a port of the test's own
    execFileSync("pg_createcluster", [version, cluster, "-p", String(port)], { stdio: "ignore" });
    execFileSync("pg_ctlcluster", [version, cluster, "start"], { stdio: "ignore" });
  }, 900_000);

  afterAll(() => {
    if (version) spawnSync("pg_dropcluster", ["--stop", version, cluster], { stdio: "ignore" });
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("the role and database the guide creates serve provgraph; a pg_dump of it restores, migrates and passes every invariant", async () => {
    const [install, create, start] = shellBlocks("docs/operating/postgresql.md");
    expect(install.text).toContain("apt-get install -y postgresql");
    // the guide's own commands, verbatim
    bash(create.text);
    const url = /^export DATABASE_URL='([^']+)'$/m.exec(start.text)![1].replace(":5432/", `:${port}/`);
    expect(start.text).toContain("npm start");

    const server = await startCliServer({ DATABASE_URL: url });
    try {
      const tour = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").match(/```graphql\n(mutation Record[\s\S]*?)```/)![1];
      const answer = (await (await fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: tour }) })).json()) as { errors?: unknown };
      expect(answer.errors).toBeUndefined();
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await server.stop();
    }

    const [, , backup] = shellBlocks("docs/operating/backups.md");
    expect(backup.text).toContain("pg_dump --format=custom");
    // the same commands, against this cluster's port; provgraph as the package's command
    const script = backup.text.replace(/:5432\//g, `:${port}/`).replace(/^provgraph /gm, `node ${path.join(ROOT, "bin", "provgraph.js")} `);
    const output = bash(script);
    expect(output).toMatch(/Applied \d+ migration\(s\)|No pending migrations/);
    expect(output).toMatch(/0 violations\n$/);
    const restored = await runCli(["integrity", "--local"], { DATABASE_URL: url.replace(/\/provgraph$/, "/provgraph_restored") });
    expect([restored.code, restored.stdout.split("\n").slice(-2)]).toEqual([0, ["0 violations", ""]]);
  }, 900_000);
});

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBuilt } from "../support/build";
import { freePort } from "../support/free-port";

const ROOT = path.join(__dirname, "..", "..");

/**
 * What a start costs is mostly what it loads (docs/operating/deployment.md "Start-up"): `npm start` on
 * SQLite with the defaults loads nothing that only PostgreSQL, Redis, metrics or compiled closures
 * need, and reads Prisma's query compiler as the .wasm the build wrote, not as its 4.4 MB base64
 * module. Those load when they are used: the metrics, compiled-queries and PostgreSQL tests use them.
 */
describe("npm start on SQLite loads only what a start needs", () => {
  let dir: string;

  beforeAll(() => {
    ensureBuilt();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-startup-loads-"));
  }, 900_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("the build points the generated clients at the compiler it decoded", () => {
    for (const [client, provider] of [
      ["sqlite", "sqlite"],
      ["pg", "postgresql"],
    ]) {
      const internal = path.join(ROOT, "dist", "src", "generated", client, "internal");
      expect(fs.readFileSync(path.join(internal, "class.js"), "utf8")).not.toContain("wasm-base64");
      const wasm = fs.readFileSync(path.join(internal, `query_compiler_fast_bg.${provider}.wasm`));
      expect(WebAssembly.validate(wasm)).toBe(true);
    }
  });

  test("a started server has loaded neither pg, ioredis, graphql-jit, prom-client nor the base64 compiler, and answers", async () => {
    const port = await freePort();
    const loadedList = path.join(dir, "loaded.json");
    // Preloaded into the server: on exit, every file it required and every file its dynamic imports read.
    const preload = path.join(dir, "list-loaded.cjs");
    fs.writeFileSync(
      preload,
      `const fs = require("node:fs");
const read = new Set();
const readFileSync = fs.readFileSync;
fs.readFileSync = function (file, ...rest) { if (typeof file === "string") read.add(file); return readFileSync.call(this, file, ...rest); };
process.on("exit", () => fs.writeFileSync(${JSON.stringify(loadedList)}, JSON.stringify([...Object.keys(require.cache), ...read])));
`,
    );
    const env: Record<string, string> = { ...(process.env as Record<string, string>), NODE_ENV: "production", PORT: String(port), DATABASE_URL: `file:${path.join(dir, "new.db")}`, LOG_LEVEL: "warn" };
    delete env.NODE_OPTIONS;
    delete env.REDIS_URL;
    delete env.METRICS;
    const server = spawn(process.execPath, ["--require", preload, "dist/src/main.js"], { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    server.stderr.on("data", (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
    try {
      for (let ready = false; !ready; ) {
        if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}: ${stderr}`);
        ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (response) => response.status === 200,
          () => false,
        );
        if (!ready) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // and it answers (a query that does not run compiled: `{ __typename }` alone would load graphql-jit)
      const answer = await fetch(`http://127.0.0.1:${port}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: '{ __type(name: "Query") { name } }' }) });
      expect(await answer.json()).toEqual({ data: { __type: { name: "Query" } } });
    } finally {
      server.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    const loaded = (JSON.parse(fs.readFileSync(loadedList, "utf8")) as string[]).map((file) => file.split(path.sep).join("/"));
    expect(loaded.some((file) => file.endsWith("/dist/src/app.js"))).toBe(true);
    expect(loaded.some((file) => file.endsWith("query_compiler_fast_bg.sqlite.wasm"))).toBe(true);
    const unneeded = loaded.filter((file) =>
      /\/node_modules\/(pg|pg-pool|ioredis|graphql-jit|@envelop\/graphql-jit|prom-client|@prisma\/adapter-pg)\/|\/dist\/src\/generated\/pg\/|wasm-base64/.test(file),
    );
    expect(unneeded).toEqual([]);
  }, 300_000);
});

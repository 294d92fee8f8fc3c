import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ensureBuilt } from "../support/build";

/**
 * provgraph as a package: `npm pack` makes a tarball that installs into an empty folder with its
 * production dependencies only (from the local npm cache: no network needed), and `provgraph serve`
 * runs there on its embedded default — migrations, compiled server and Prisma clients inside, no
 * TypeScript, tsx or Prisma CLI anywhere. (Independent of TEST_DATABASE_URL: run on the SQLite pass only.)
 */
const run = promisify(execFile);
const ROOT = path.join(__dirname, "..", "..");
const TOUR = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").match(/```graphql\n(mutation Record[\s\S]*?)```/)![1];

describe("the packed package", () => {
  let dir: string;
  let tarball: string;
  let server: ReturnType<typeof spawn> | undefined;

  beforeAll(async () => {
    ensureBuilt();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-package-"));
    // the build is fresh (ensureBuilt): pack it as it is rather than build it again; the lockfile goes in as
    // npm-shrinkwrap.json (what prepack does), so an install gets the versions the suite ran with
    fs.copyFileSync(path.join(ROOT, "package-lock.json"), path.join(ROOT, "npm-shrinkwrap.json"));
    let stdout: string;
    try {
      ({ stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }));
    } finally {
      fs.rmSync(path.join(ROOT, "npm-shrinkwrap.json"), { force: true });
    }
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    tarball = path.join(dir, packed.filename);
    const files = packed.files.map((file) => file.path);
    expect(files).toEqual(expect.arrayContaining(["bin/provgraph.js", "dist/src/main.js", "dist/src/cli/main.js", "dist/src/openlineage/openlineage-validators.generated.js", "package.json", "README.md", "docs/cli.md", "deploy/provgraph.service", "schema.graphql", "npm-shrinkwrap.json"]));
    expect(files.filter((file) => file.endsWith("migration.sql")).length).toBeGreaterThan(10);
    expect(files.filter((file) => /^(src|test|bench|scripts)\//.test(file) || file.endsWith(".ts"))).toEqual([]);
  }, 900_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill("SIGTERM");
      await new Promise((resolve) => server!.once("exit", resolve));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("installs into an empty folder with production dependencies only, and `provgraph serve` records and reads a run", async () => {
    const app = path.join(dir, "app");
    fs.mkdirSync(app);
    // better-sqlite3 compiles SQLite from source (many minutes on a busy machine) when its installer cannot
    // download a prebuilt binary: hand it, as a local prebuild, the binary this checkout's install built for this Node
    const prebuilds = path.join(dir, "prebuilds");
    fs.mkdirSync(prebuilds);
    const sqlite = path.join(ROOT, "node_modules", "better-sqlite3");
    const { version } = JSON.parse(fs.readFileSync(path.join(sqlite, "package.json"), "utf8")) as { version: string };
    await run("tar", ["-czf", path.join(prebuilds, `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`), "build/Release/better_sqlite3.node"], { cwd: sqlite });
    // from the npm cache the checkout's own install filled, where it has them
    const installed = await run("npm", ["install", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund", tarball], {
      cwd: app,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: "false", npm_config_better_sqlite3_local_prebuilds: prebuilds },
    });
    // npm reads the shrinkwrap of a package only from a registry's metadata (not from a tarball) and never applies
    // a dependency's overrides: the production tree must come out right from the dependencies' ranges alone —
    // one graphql (16, the one graphql-yoga and provgraph's schema share), nothing that wants a newer Node, no peer conflict
    const log = `${installed.stdout}${installed.stderr}`;
    expect([...new Set([...log.matchAll(/package: '([^']+)'/g)].map((match) => match[1]))]).toEqual([]);
    expect([...log.matchAll(/While resolving: (\S+)@/g)].map((match) => match[1])).toEqual([]);
    const graphqls = (await run("npm", ["ls", "graphql", "--all", "--json"], { cwd: app, maxBuffer: 64 * 1024 * 1024 })).stdout;
    expect([...new Set([...graphqls.matchAll(/"graphql": \{\s*"version": "([^"]+)"/g)].map((match) => match[1]))]).toEqual([JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).dependencies.graphql]);
    for (const devOnly of ["typescript", "tsx", "prisma", "jest", "@swc/core"]) expect([devOnly, fs.existsSync(path.join(app, "node_modules", devOnly))]).toEqual([devOnly, false]);
    const bin = path.join(app, "node_modules", ".bin", "provgraph");
    const help = await run(bin, ["--help"], { cwd: app });
    expect(help.stdout).toMatch(/^Usage: provgraph/);

    server = spawn(bin, ["serve", "--port", "0"], { cwd: app, env: { PATH: process.env.PATH ?? "", HOME: os.homedir(), LOG_LEVEL: "info" }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    server.stdout!.on("data", (chunk) => (output += chunk));
    server.stderr!.on("data", (chunk) => (output += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`provgraph serve did not listen:\n${output}`)), 120_000);
      server!.stdout!.on("data", () => {
        const match = /provgraph listening on (http:\/\/\S+?)"/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      server!.once("exit", (code) => reject(new Error(`provgraph serve exited with ${code}:\n${output}`)));
    });
    // its embedded default: ./data/provgraph.db in the folder it runs in, migrated at start
    expect(fs.existsSync(path.join(app, "data", "provgraph.db"))).toBe(true);
    const gql = async (query: string) => (await (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) })).json()) as { data?: any; errors?: unknown };
    expect((await gql(TOUR)).errors).toBeUndefined();
    expect(await gql(`{ lineage(artifactId: "art_9c6ec26e20ae3bb0a61d8d5a0905f3d570532266") { nodes { depth artifact { originalName } } } }`)).toEqual({
      data: { lineage: { nodes: [{ depth: 1, artifact: { originalName: "sample_a.csv" } }] } },
    });
    const lineage = await run(bin, ["lineage", "art_9c6ec26e20ae3bb0a61d8d5a0905f3d570532266", "--format", "json", "--url", url], { cwd: app });
    expect(JSON.parse(lineage.stdout).upstream.nodes).toHaveLength(1);
  }, 1_200_000);
});

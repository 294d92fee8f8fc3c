import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { GRAPHIQL_ASSETS_PATH } from "../../src/http/graphiql";
import { type App, buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { REGISTER_OPERATION } from "../support/recording";
import { createTestDatabaseUrl } from "../support/test-database";

/**
 * GraphiQL in a real browser (Debian's chromium, headless) on a machine that may have no
 * internet: the page must render and run a query with every request answered by provgraph.
 */
const CHROMIUM = "/usr/bin/chromium";
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

describe("GraphiQL in headless Chromium", () => {
  let app: App;
  let url: string;
  let database: { url: string; drop: () => Promise<void> };
  let profile: string;
  let browser: BrowserContext;
  const requested: string[] = [];
  const blocked: string[] = [];
  const failed: string[] = [];

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; .ci/run does)`);
    database = await createTestDatabaseUrl();
    app = await buildApp(loadConfig({ DATABASE_URL: database.url, PORT: "0", LOG_LEVEL: "silent" }));
    url = await app.start();
    profile = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-chromium-"));
    // a fresh --user-data-dir (Playwright takes it as launchPersistentContext's first argument);
    // headless: true adds --headless
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    // Every request the pages (and their workers) make: loopback ones go through, anything
    // else is recorded and refused.
    await browser.route("**/*", (route) => {
      const target = new URL(route.request().url());
      requested.push(target.href);
      if ((target.protocol === "http:" || target.protocol === "https:" || target.protocol === "ws:") && LOOPBACK.has(target.hostname)) return route.continue();
      blocked.push(target.href);
      return route.abort("blockedbyclient");
    });
    browser.on("response", (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    browser.on("requestfailed", (request) => failed.push(`failed ${request.url()}: ${request.failure()?.errorText}`));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
    await app?.stop();
    await database?.drop();
  });

  test("renders from provgraph's own assets, runs a typed query and shows its result", async () => {
    const registered = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: REGISTER_OPERATION,
        variables: { input: { name: "graphiql-check", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "made", artifactType: "txt", inferLineageFrom: { inputs: [] } }] } },
      }),
    });
    expect((await registered.json()).data.registerOperation.__typename).toBe("Operation");

    const page = browser.pages()[0] ?? (await browser.newPage());
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(url);
    // the editor and the run button appear only once the bundle has loaded and rendered
    await page.waitForSelector(".graphiql-query-editor .monaco-editor", { timeout: 30_000 });
    await page.waitForSelector(".graphiql-execute-button");
    expect(await page.title()).toBe("provgraph");

    await page.click(".graphiql-query-editor .monaco-editor");
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    // insertText types the text as one input (no auto-closed brackets doubling it)
    const query = "{ operations(first: 5) { edges { node { name version kind } } } }";
    await page.keyboard.insertText(query);
    expect(normalize(await page.innerText(".graphiql-query-editor .view-lines"))).toBe(query);

    await page.click(".graphiql-execute-button");
    await page.waitForFunction(() => document.querySelector<HTMLElement>(".graphiql-response .view-lines")?.innerText.includes("operations"), null, { timeout: 15_000 });
    const shown = JSON.parse(normalize(await page.innerText(".graphiql-response .view-lines")));
    expect(shown).toEqual({ data: { operations: { edges: [{ node: { name: "graphiql-check", version: "1", kind: "CREATOR" } }] } } });

    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
    expect(failed).toEqual([]);
    // the page, its stylesheet and script, the three editor workers, introspection and the query
    const origin = new URL(url).origin;
    const assets = [...new Set(requested.filter((href) => href.startsWith(origin + GRAPHIQL_ASSETS_PATH)))].sort();
    expect(assets).toEqual(
      ["graphiql.css", "monacoeditorwork/editor.worker.bundle.js", "monacoeditorwork/graphql.worker..bundle.js", "monacoeditorwork/json.worker.bundle.js", "yoga-graphiql.umd.js"].map(
        (file) => origin + GRAPHIQL_ASSETS_PATH + file,
      ),
    );
    expect(requested.every((href) => href.startsWith(origin))).toBe(true);
  }, 90_000);
});

/** Monaco renders spaces as U+00A0. */
const normalize = (text: string) => text.replace(/\u00a0/g, " ").trim();

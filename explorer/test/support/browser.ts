/**
 * Debian's chromium, headless, through playwright-core: a fresh profile, no network but loopback (any
 * other request is refused and recorded), page errors and CSP refusals recorded, screenshots kept under
 * test-results/explorer/ (CI keeps that folder).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { ROOT } from "./build";

export const CHROMIUM = "/usr/bin/chromium";
export const SCREENSHOTS = path.join(ROOT, "test-results/explorer");
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface Browser {
  context: BrowserContext;
  /** Every URL requested that was not loopback (refused). */
  blocked: string[];
  /** Uncaught page errors and console errors (a CSP refusal is one). */
  errors: string[];
  newPage(): Promise<Page>;
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; .ci/run does)`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-explorer-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route("**/*", (route) => {
    const target = new URL(route.request().url());
    if ((target.protocol === "http:" || target.protocol === "ws:") && LOOPBACK.has(target.hostname)) return route.continue();
    if (target.protocol === "data:") return route.continue();
    blocked.push(target.href);
    return route.abort("blockedbyclient");
  });
  const watch = (page: Page) => {
    page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
    page.on("console", (message) => message.type() === "error" && errors.push(`console: ${message.text()}`));
  };
  context.on("page", watch);
  for (const page of context.pages()) watch(page);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    blocked,
    errors,
    newPage: async () => {
      const page = await context.newPage();
      return page;
    },
    screenshot: async (page, name) => {
      const file = path.join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * axe-core, the accessibility engine browsers' own audits use, run in a page as it stands: WCAG 2.2 A and
 * AA and axe's best practices. The engine goes in through the DevTools protocol, not a script tag, so the
 * Explorer's Content-Security-Policy stays as it is served.
 */
import fs from "node:fs";
import type { Page } from "playwright-core";

const AXE_SOURCE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice"];

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[]; failureSummary?: string }[] }[];
}

/** Every rule the page breaks, one line per element: impact, rule, what it asks, where, and why it failed. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(
    (tags) => (window as unknown as { axe: { run(context: Document, options: object): Promise<unknown> } }).axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }),
    TAGS,
  )) as AxeResult;
  return result.violations.flatMap((rule) =>
    rule.nodes.map((node) => `${rule.impact} ${rule.id} (${rule.help}) at ${node.target.join(" ")}: ${(node.failureSummary ?? "").replace(/\s+/g, " ").trim()}`),
  );
}

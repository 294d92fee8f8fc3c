import fs from "node:fs";
import path from "node:path";

/**
 * The GraphQL examples of README.md and docs/ as data, so a test can run them and the pages cannot drift.
 *
 * A block preceded by the line `<!-- walkthrough -->` is a walkthrough step: a page's walkthrough
 * runs its steps in order on an empty database, and the next fenced block (```json, inside a
 * collapsed <details>) is the exact answer. In the shown answers, runIds pair one-to-one with the runIds of the run being
 * checked (they are new per attempt) and a date-time matches any date-time; everything else
 * (artifact, operation, spec and group ids included: they are deterministic) must be equal.
 * `npm run docs:walkthrough` rewrites the shown answers from a fresh run.
 */
export const WALKTHROUGH_MARKER = "<!-- walkthrough -->";

export interface FencedBlock {
  lang: string;
  text: string;
  /** The markdown file it is in (for messages). */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** Line indexes (0-based) of the content: [first, end). */
  contentStart: number;
  contentEnd: number;
  walkthrough: boolean;
}

export interface WalkthroughStep {
  query: FencedBlock;
  answer: FencedBlock;
}

/** `page` names the markdown in error messages (e.g. "docs/lineage.md"). */
export function fencedBlocks(markdown: string, page = "README.md"): FencedBlock[] {
  const lines = markdown.split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```([\w-]*)\s*$/.exec(lines[i]);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    if (end === lines.length) throw new Error(`${page} line ${i + 1}: unclosed code fence`);
    let previous = i - 1;
    while (previous >= 0 && lines[previous].trim() === "") previous--;
    blocks.push({
      lang: open[1],
      page,
      text: lines.slice(i + 1, end).join("\n"),
      line: i + 1,
      contentStart: i + 1,
      contentEnd: end,
      walkthrough: previous >= 0 && lines[previous].trim() === WALKTHROUGH_MARKER,
    });
    i = end;
  }
  return blocks;
}

export function walkthroughSteps(blocks: readonly FencedBlock[]): WalkthroughStep[] {
  const steps: WalkthroughStep[] = [];
  blocks.forEach((block, i) => {
    if (!block.walkthrough) return;
    const answer = blocks[i + 1];
    if (block.lang !== "graphql") throw new Error(`${block.page} line ${block.line}: a walkthrough block must be graphql, got '${block.lang}'`);
    if (!answer || answer.lang !== "json") throw new Error(`${block.page} line ${block.line}: a walkthrough block must be followed by its answer in a json block`);
    steps.push({ query: block, answer });
  });
  return steps;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const RUN_ID = /run_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Compares shown answers with actual ones across a whole walkthrough (runIds pair up across steps). */
export class AnswerComparer {
  private readonly shownToActual = new Map<string, string>();
  private readonly actualToShown = new Map<string, string>();

  /** The differences, each as "<path>: <why>"; empty when the answer is as shown. */
  differences(shown: unknown, actual: unknown, path = "$"): string[] {
    if (typeof shown === "string") {
      return typeof actual === "string" && this.sameString(shown, actual) ? [] : [`${path}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
    }
    if (Array.isArray(shown)) {
      if (!Array.isArray(actual)) return [`${path}: shown a list, got ${JSON.stringify(actual)}`];
      if (shown.length !== actual.length) return [`${path}: shown ${shown.length} items, got ${actual.length}: ${JSON.stringify(actual)}`];
      return shown.flatMap((item, i) => this.differences(item, actual[i], `${path}[${i}]`));
    }
    if (shown !== null && typeof shown === "object") {
      if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return [`${path}: shown an object, got ${JSON.stringify(actual)}`];
      const shownKeys = Object.keys(shown);
      const actualKeys = Object.keys(actual);
      if (shownKeys.length !== actualKeys.length || !shownKeys.every((key, i) => this.sameString(key, actualKeys[i]))) {
        return [`${path}: shown keys ${JSON.stringify(shownKeys)}, got ${JSON.stringify(actualKeys)}`];
      }
      return shownKeys.flatMap((key, i) => this.differences((shown as Record<string, unknown>)[key], (actual as Record<string, unknown>)[actualKeys[i]], `${path}.${key}`));
    }
    return shown === actual ? [] : [`${path}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
  }

  private sameString(shown: string, actual: string): boolean {
    if (DATE_TIME.test(shown)) return DATE_TIME.test(actual);
    const shownRuns = shown.match(RUN_ID) ?? [];
    const actualRuns = actual.match(RUN_ID) ?? [];
    if (shownRuns.length !== actualRuns.length) return false;
    for (let i = 0; i < shownRuns.length; i++) {
      const paired = this.shownToActual.get(shownRuns[i]);
      const pairedBack = this.actualToShown.get(actualRuns[i]);
      if (paired === undefined && pairedBack === undefined) {
        this.shownToActual.set(shownRuns[i], actualRuns[i]);
        this.actualToShown.set(actualRuns[i], shownRuns[i]);
      } else if (paired !== actualRuns[i] || pairedBack !== shownRuns[i]) {
        return false;
      }
    }
    return shown.replace(RUN_ID, (id) => this.shownToActual.get(id)!) === actual;
  }
}

/** JSON for reading: a value goes on one line when it fits in `width` columns, else one item per line. */
export function formatJson(value: unknown, width = 120): string {
  const inline = (v: unknown): string => {
    if (Array.isArray(v)) return v.length ? `[${v.map(inline).join(", ")}]` : "[]";
    if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      return entries.length ? `{ ${entries.map(([k, item]) => `${JSON.stringify(k)}: ${inline(item)}`).join(", ")} }` : "{}";
    }
    return JSON.stringify(v);
  };
  // `used`: columns already taken on the line where the value starts; `indent`: its line's indent
  const format = (v: unknown, indent: string, used: number): string => {
    const one = inline(v);
    // +1 for a trailing comma
    if (used + one.length + 1 <= width || v === null || typeof v !== "object") return one;
    const inner = `${indent}  `;
    if (Array.isArray(v)) return `[\n${v.map((item) => inner + format(item, inner, inner.length)).join(",\n")}\n${indent}]`;
    const entries = Object.entries(v).map(([k, item]) => {
      const key = `${JSON.stringify(k)}: `;
      return inner + key + format(item, inner, inner.length + key.length);
    });
    return `{\n${entries.join(",\n")}\n${indent}}`;
  };
  return format(value, "", 0);
}

/** The markdown with each walkthrough step's answer block replaced by the given answer. */
export function withAnswers(markdown: string, answers: readonly unknown[]): string {
  const lines = markdown.split("\n");
  const steps = walkthroughSteps(fencedBlocks(markdown));
  if (steps.length !== answers.length) throw new Error(`${steps.length} walkthrough steps, ${answers.length} answers`);
  // from the last to the first, so earlier line numbers stay valid
  for (let i = steps.length - 1; i >= 0; i--) {
    const { contentStart, contentEnd } = steps[i].answer;
    lines.splice(contentStart, contentEnd - contentStart, ...formatJson(answers[i]).split("\n"));
  }
  return lines.join("\n");
}

/** README.md and every page under docs/, as paths relative to the repository root (sorted). */
export function documentationPages(root: string): string[] {
  const pages = ["README.md"];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith(".md")) pages.push(relative);
    }
  };
  walk("docs");
  return pages;
}

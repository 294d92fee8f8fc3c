import fs from "node:fs";
import path from "node:path";
import { documentationPages } from "../support/doc-walkthrough";

/**
 * README.md and docs/ speak of provgraph and its users: not of how provgraph was built, by whom, on which
 * machine, or from which notes. Each pattern below is a kind of sentence that once leaked into them.
 */
const LEAKS: { pattern: RegExp; why: string }[] = [
  // a random seed ("seed 4711", "seed …") is fine; the design notes are not
  { pattern: /\bseeds?\b(?!\s+(\d|…))/i, why: "the design notes provgraph was built from" },
  { pattern: /\bissues?\s*#?\d+/i, why: "an issue of the project's tracker" },
  { pattern: /\bour environment\b|\bthis environment\b|\bhere\s*\(no internet/i, why: "the environment provgraph was built in" },
  { pattern: /cannot be downloaded|can't be downloaded|is unreachable here/i, why: "a limitation of the build machine" },
  { pattern: /\bstop \d/i, why: "a work plan's stops" },
  { pattern: /\bhelpers?\b/i, why: "who built provgraph" },
  { pattern: /\bthe lead\b|\bthis round\b/i, why: "how the work was organised" },
  { pattern: /prisma-offline|\.\.\/shared|\/work\//i, why: "notes and paths outside the repository" },
  { pattern: /\bTODO\b|\bFIXME\b|\bXXX\b/, why: "an unfinished note" },
  { pattern: /\bused to (deadlock|collapse|fail|be)\b|\bbefore this change\b/i, why: "history of the code rather than what it does" },
];

const ROOT = path.join(__dirname, "..", "..");

describe("the documentation speaks of provgraph and its users only", () => {
  const pages = documentationPages(ROOT);

  test("README.md and every page under docs/ are checked", () => {
    expect(pages).toContain("README.md");
    expect(pages).toEqual(expect.arrayContaining(["docs/walkthrough.md", "docs/errors.md", "docs/operating/postgresql.md"]));
  });

  test.each(pages)("%s has none of the phrases that leaked", (page) => {
    const lines = fs.readFileSync(path.join(ROOT, page), "utf8").split("\n");
    const found = lines.flatMap((line, i) => LEAKS.filter(({ pattern }) => pattern.test(line)).map(({ pattern, why }) => `${page}:${i + 1}: ${why} (${pattern}): ${line.trim()}`));
    expect(found).toEqual([]);
  });

  test("no paragraph is repeated word for word, on one page or across pages", () => {
    const seen = new Map<string, string>();
    const repeated: string[] = [];
    for (const page of pages) {
      const text = fs.readFileSync(path.join(ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
      for (const paragraph of text.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, " ").trim())) {
        if (paragraph.length < 200) continue;
        const first = seen.get(paragraph);
        if (first) repeated.push(`${page} repeats a paragraph of ${first}: ${paragraph.slice(0, 80)}…`);
        else seen.set(paragraph, page);
      }
    }
    expect(repeated).toEqual([]);
  });

  test("the check finds each kind of leak", () => {
    const samples = [
      'the seed "Composite provenance"',
      "The goal column is issue 12's.",
      "cannot be downloaded in our environment",
      "as in stop 1",
      "helper ops wrote this",
      "see ../shared/notes/prisma-offline.md",
      "such strings used to collapse into one id",
    ];
    for (const sample of samples) expect([sample, LEAKS.some(({ pattern }) => pattern.test(sample))]).toEqual([sample, true]);
    for (const fine of ["CRASH_SEED replays a run", "crash suite (sqlite, seed 4711)", "fuzz suite (seed …)", "the token used to sign"]) {
      expect([fine, LEAKS.some(({ pattern }) => pattern.test(fine))]).toEqual([fine, false]);
    }
  });
});

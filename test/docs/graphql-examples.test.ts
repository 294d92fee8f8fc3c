import fs from "node:fs";
import path from "node:path";
import { type OperationDefinitionNode, parse, validate } from "graphql";
import { schema } from "../../src/schema/index";
import { AnswerComparer, documentationPages, type FencedBlock, fencedBlocks, formatJson, walkthroughSteps, withAnswers } from "../support/doc-walkthrough";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * The GraphQL of README.md and docs/ cannot drift: each page's walkthrough runs as shown, on an empty
 * database, and every other example validates (and, when it needs no variables, runs on the data
 * of docs/walkthrough.md).
 */
const ROOT = path.join(__dirname, "..", "..");
const pages = documentationPages(ROOT).map((page) => {
  const blocks = fencedBlocks(fs.readFileSync(path.join(ROOT, page), "utf8"), page);
  return { page, blocks, steps: walkthroughSteps(blocks), others: blocks.filter((block) => block.lang === "graphql" && !block.walkthrough) };
});
const label = (block: FencedBlock) => `${block.page} line ${block.line}`;
const operationName = (text: string) => (parse(text).definitions[0] as OperationDefinitionNode).name?.value;
const others = pages.flatMap((page) => page.others);
const stepsOf = (page: string) => pages.find((p) => p.page === page)!.steps;

async function runWalkthrough(t: TestApp, steps: ReturnType<typeof walkthroughSteps>, comparer: AnswerComparer): Promise<void> {
  for (const step of steps) {
    const shown = JSON.parse(step.answer.text);
    const actual = await t.gql(step.query.text);
    const differences = comparer.differences(shown, actual);
    if (differences.length) {
      throw new Error(
        `${label(step.query)}: the answer differs from the page (run \`npm run docs:walkthrough\` if the change is intended):\n` +
          `${differences.join("\n")}\n\nactual answer:\n${formatJson(actual)}`,
      );
    }
  }
}

describe("the walkthroughs", () => {
  test("the README's tour records, finds by name, then asks upstream; docs/walkthrough.md has its seven steps", () => {
    expect(stepsOf("README.md").map(({ query }) => operationName(query.text))).toEqual(["Record", "Find", "Upstream"]);
    expect(stepsOf("docs/walkthrough.md").map(({ query }) => operationName(query.text))).toEqual(["Ingest", "Clean", "Annotate", "Upstream", "Pipeline", "Prov", "Find"]);
  });

  // Each page on an empty database of its own; within a page, in order (each step needs the ones before).
  test.each(pages.filter((page) => page.steps.length).map((page) => [page.page, page] as const))("%s: every step answers exactly what is shown under it", async (_page, { steps }) => {
    const t = await createTestApp();
    try {
      await runWalkthrough(t, steps, new AnswerComparer());
    } finally {
      await t.close();
    }
  });
});

describe("every other GraphQL example", () => {
  test("parses and validates against the schema", () => {
    expect(others.length).toBeGreaterThanOrEqual(17);
    const problems = others.flatMap((block) => {
      try {
        return validate(schema, parse(block.text)).map((error) => `${label(block)}: ${error.message}`);
      } catch (error) {
        return [`${label(block)}: ${(error as Error).message}`];
      }
    });
    expect(problems).toEqual([]);
  });

  test("runs without errors on the data of docs/walkthrough.md when it has no placeholders or variables", async () => {
    const runnable = others.filter((block) => {
      const operation = parse(block.text).definitions[0] as OperationDefinitionNode;
      return !block.text.includes("…") && operation.operation === "query" && !operation.variableDefinitions?.length;
    });
    expect(runnable.length).toBeGreaterThanOrEqual(2);
    const t = await createTestApp();
    try {
      await runWalkthrough(t, stepsOf("docs/walkthrough.md"), new AnswerComparer());
      for (const block of runnable) {
        const answer = await t.gql(block.text);
        expect({ block: label(block), errors: answer.errors }).toEqual({ block: label(block), errors: undefined });
      }
    } finally {
      await t.close();
    }
  });
});

describe("the walkthrough checker itself", () => {
  const run = "run_01a23077-7841-711b-b834-f9e61d31998f";
  const other = "run_01a23077-78df-73ef-b211-b484bbfbadcb";

  test("runIds pair one-to-one across answers; times match any time; all else is exact", () => {
    const comparer = new AnswerComparer();
    const actual = "run_01b00000-0000-7000-8000-000000000001";
    expect(comparer.differences({ runId: run, at: "2026-12-01T07:17:45.665Z" }, { runId: actual, at: "2031-01-01T00:00:00Z" })).toEqual([]);
    // the same shown id must be the same actual id in later answers, keys included
    expect(comparer.differences({ [`provgraph:${run}`]: 1 }, { [`provgraph:${actual}`]: 1 })).toEqual([]);
    expect(comparer.differences({ runId: run }, { runId: "run_01b00000-0000-7000-8000-000000000002" })).toHaveLength(1);
    // and a second shown id cannot pair with an actual id already taken
    expect(comparer.differences({ runId: other }, { runId: actual })).toHaveLength(1);
    expect(comparer.differences({ id: "art_1", n: 2, list: [1] }, { id: "art_2", n: 2, list: [1] })).toEqual(['$.id: shown "art_1", got "art_2"']);
    expect(comparer.differences({ a: 1, b: 2 }, { b: 2, a: 1 })).toHaveLength(1);
    expect(comparer.differences([1, 2], [1, 2, 3])).toHaveLength(1);
    expect(comparer.differences({ at: "2026-12-01T07:17:45.665Z" }, { at: "yesterday" })).toHaveLength(1);
  });

  test("a walkthrough block must be followed by its json answer", () => {
    expect(() => walkthroughSteps(fencedBlocks("<!-- walkthrough -->\n```graphql\n{ a }\n```\n\n```graphql\n{ b }\n```\n"))).toThrow(
      "README.md line 2: a walkthrough block must be followed by its answer in a json block",
    );
  });

  test("answers are rewritten in place, one line per value that fits", () => {
    const markdown = "text\n<!-- walkthrough -->\n```graphql\n{ a }\n```\n\n```json\n{}\n```\nmore\n";
    expect(withAnswers(markdown, [{ data: { a: [1, 2] } }])).toBe("text\n<!-- walkthrough -->\n```graphql\n{ a }\n```\n\n```json\n{ \"data\": { \"a\": [1, 2] } }\n```\nmore\n");
    expect(formatJson({ list: ["x".repeat(60), "y".repeat(60)] })).toBe(`{\n  "list": [\n    "${"x".repeat(60)}",\n    "${"y".repeat(60)}"\n  ]\n}`);
  });
});

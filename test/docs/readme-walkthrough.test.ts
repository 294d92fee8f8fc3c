import fs from "node:fs";
import path from "node:path";
import { type OperationDefinitionNode, parse, validate } from "graphql";
import { schema } from "../../src/schema/index";
import { AnswerComparer, type FencedBlock, fencedBlocks, formatJson, walkthroughSteps, withAnswers } from "../support/readme-walkthrough";
import { createTestApp, type TestApp } from "../support/test-app";

/** The README's GraphQL cannot drift: its walkthrough runs as shown, its other examples validate. */
const README = fs.readFileSync(path.join(__dirname, "..", "..", "README.md"), "utf8");
const blocks = fencedBlocks(README);
const steps = walkthroughSteps(blocks);
const others = blocks.filter((block) => block.lang === "graphql" && !block.walkthrough);
const label = (block: FencedBlock) => `README line ${block.line}`;

describe("README walkthrough, run in order on an empty database", () => {
  let t: TestApp;
  const comparer = new AnswerComparer();
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("the walkthrough has its six steps: ingest, clean, annotate, lineage, macro graph, PROV-JSON", () => {
    expect(steps.map(({ query }) => (parse(query.text).definitions[0] as OperationDefinitionNode).name?.value)).toEqual([
      "Ingest",
      "Clean",
      "Annotate",
      "Upstream",
      "Pipeline",
      "Prov",
    ]);
  });

  // Sequential by construction (jest runs a file's tests in order): each step needs the ones before.
  test.each(steps.map((step) => [label(step.query), step] as const))("%s answers exactly what is shown under it", async (_label, step) => {
    const shown = JSON.parse(step.answer.text);
    const actual = await t.gql(step.query.text);
    const differences = comparer.differences(shown, actual);
    if (differences.length) {
      throw new Error(
        `${label(step.query)}: the answer differs from the README (run \`npm run docs:walkthrough\` if the change is intended):\n` +
          `${differences.join("\n")}\n\nactual answer:\n${formatJson(actual)}`,
      );
    }
  });

  test("every other GraphQL example in the README parses and validates against the schema", () => {
    expect(others.length).toBeGreaterThanOrEqual(4);
    const problems = others.flatMap((block) => {
      try {
        return validate(schema, parse(block.text)).map((error) => `${label(block)}: ${error.message}`);
      } catch (error) {
        return [`${label(block)}: ${(error as Error).message}`];
      }
    });
    expect(problems).toEqual([]);
  });

  test("the examples without placeholders or variables run without errors on the walkthrough's data", async () => {
    const runnable = others.filter((block) => {
      const operation = parse(block.text).definitions[0] as OperationDefinitionNode;
      return !block.text.includes("…") && operation.operation === "query" && !operation.variableDefinitions?.length;
    });
    expect(runnable.length).toBeGreaterThanOrEqual(2);
    for (const block of runnable) {
      const answer = await t.gql(block.text);
      expect({ block: label(block), errors: answer.errors }).toEqual({ block: label(block), errors: undefined });
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
      "README line 2: a walkthrough block must be followed by its answer in a json block",
    );
  });

  test("answers are rewritten in place, one line per value that fits", () => {
    const markdown = "text\n<!-- walkthrough -->\n```graphql\n{ a }\n```\n\n```json\n{}\n```\nmore\n";
    expect(withAnswers(markdown, [{ data: { a: [1, 2] } }])).toBe("text\n<!-- walkthrough -->\n```graphql\n{ a }\n```\n\n```json\n{ \"data\": { \"a\": [1, 2] } }\n```\nmore\n");
    expect(formatJson({ list: ["x".repeat(60), "y".repeat(60)] })).toBe(`{\n  "list": [\n    "${"x".repeat(60)}",\n    "${"y".repeat(60)}"\n  ]\n}`);
  });
});

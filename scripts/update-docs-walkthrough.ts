// Rewrites the answers shown under the walkthrough blocks of README.md and docs/ from a run of each
// page on an empty database (test/docs/graphql-examples.test.ts fails when they drift). Review the diff
// before committing.
import fs from "node:fs";
import path from "node:path";
import { documentationPages, fencedBlocks, walkthroughSteps, withAnswers } from "../test/support/doc-walkthrough";
import { createTestApp } from "../test/support/test-app";

const ROOT = path.join(__dirname, "..");

async function main() {
  for (const page of documentationPages(ROOT)) {
    const file = path.join(ROOT, page);
    const markdown = fs.readFileSync(file, "utf8");
    const steps = walkthroughSteps(fencedBlocks(markdown, page));
    if (steps.length === 0) continue;
    const t = await createTestApp();
    try {
      const answers: unknown[] = [];
      for (const { query } of steps) {
        const answer = await t.gql(query.text);
        if (answer.errors) console.warn(`${page} line ${query.line}: the block answers errors: ${JSON.stringify(answer.errors)}`);
        answers.push(answer);
      }
      fs.writeFileSync(file, withAnswers(markdown, answers));
      console.log(`rewrote ${answers.length} walkthrough answers in ${page}`);
    } finally {
      await t.close();
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

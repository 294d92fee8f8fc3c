// Rewrites the answers shown under the README's walkthrough blocks from a run on an empty database
// (test/docs/readme-walkthrough.test.ts fails when they drift). Review the diff before committing.
import fs from "node:fs";
import path from "node:path";
import { fencedBlocks, walkthroughSteps, withAnswers } from "../test/support/readme-walkthrough";
import { createTestApp } from "../test/support/test-app";

const README = path.join(__dirname, "..", "README.md");

async function main() {
  const markdown = fs.readFileSync(README, "utf8");
  const t = await createTestApp();
  try {
    const answers: unknown[] = [];
    for (const { query } of walkthroughSteps(fencedBlocks(markdown))) {
      const answer = await t.gql(query.text);
      if (answer.errors) console.warn(`README line ${query.line}: the block answers errors: ${JSON.stringify(answer.errors)}`);
      answers.push(answer);
    }
    fs.writeFileSync(README, withAnswers(markdown, answers));
    console.log(`rewrote ${answers.length} walkthrough answers in README.md`);
  } finally {
    await t.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

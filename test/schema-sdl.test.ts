import fs from "node:fs";
import path from "node:path";
import { printSchema } from "graphql";
import { schema } from "../src/schema/index";

test("schema.graphql is the printed SDL of the built schema (run `npm run schema:print` after a schema change)", () => {
  const committed = fs.readFileSync(path.join(__dirname, "..", "schema.graphql"), "utf8");
  expect(committed).toBe(`${printSchema(schema)}\n`);
});

// Writes the printed SDL of the built schema to schema.graphql (committed; test/schema-sdl.test.ts fails on drift).
import fs from "node:fs";
import path from "node:path";
import { printSchema } from "graphql";
import { schema } from "../src/schema/index";

fs.writeFileSync(path.join(__dirname, "..", "schema.graphql"), `${printSchema(schema)}\n`);
console.log("wrote schema.graphql");

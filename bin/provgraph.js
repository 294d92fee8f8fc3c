#!/usr/bin/env node
// The `provgraph` command: runs the compiled CLI (dist/src/cli/main.js), which `npm ci` / `npm run build`
// write and the published package carries. Plain JavaScript, so nothing is compiled when it starts.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const entry = path.join(__dirname, "..", "dist", "src", "cli", "main.js");
if (!fs.existsSync(entry)) {
  process.stderr.write(`provgraph: not built: run \`npm run build\` in ${path.join(__dirname, "..")}\n`);
  process.exit(70);
}
require(entry).main(process.argv);

#!/usr/bin/env node
// Part of `npm run build:server`, after tsc: writes Prisma's query compiler for each generated client as a
// .wasm file beside it (dist/src/generated/<sqlite|pg>/internal/query_compiler_fast_bg.<provider>.wasm) and
// points the compiled client at it. As generated, the client imports the compiler as a 4.4 MB JavaScript
// module holding it in base64, which a start reads, scans for its module format, parses and decodes: about
// a third of a second of CPU before the first query. The file is the same bytes, decoded once here, from the
// @prisma/client that is installed beside dist/ (the same pinned version).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const root = path.join(path.dirname(new URL(import.meta.url).pathname), "..");

for (const client of ["sqlite", "pg"]) {
  const dir = path.join(root, "dist", "src", "generated", client, "internal");
  const file = path.join(dir, "class.js");
  const source = fs.readFileSync(file, "utf8");
  // What the prisma-client generator writes (and tsc compiles) for a Node.js client in CommonJS.
  const generated = /getQueryCompilerWasmModule: async \(\) => \{\s*const \{ wasm \} = await import\("(@prisma\/client\/runtime\/(query_compiler_\w+_bg\.\w+)\.wasm-base64\.js)"\);\s*return await decodeBase64AsWasm\(wasm\);\s*\}/g;
  const patched = /getQueryCompilerWasmModule: async \(\) => new WebAssembly\.Module\(require\("node:fs"\)\.readFileSync\(require\("node:path"\)\.join\(__dirname, "(query_compiler_\w+_bg\.\w+)\.wasm"\)\)\)/g;
  const found = [...source.matchAll(generated)];
  // tsc leaves an unchanged file as it was: already pointed at the file, which is written again.
  const already = found.length === 0 ? [...source.matchAll(patched)] : [];
  if (found.length + already.length !== 1) {
    throw new Error(`${path.relative(root, file)}: expected one base64 query compiler import, found ${found.length} (did the Prisma generator change?)`);
  }
  const name = found.length === 1 ? found[0][2] : already[0][1];
  const wasm = Buffer.from(require(`@prisma/client/runtime/${name}.wasm-base64.js`).wasm, "base64");
  new WebAssembly.Module(wasm); // fails the build on bytes that are not a module
  fs.writeFileSync(path.join(dir, `${name}.wasm`), wasm);
  if (found.length === 0) continue;
  const replacement = `getQueryCompilerWasmModule: async () => new WebAssembly.Module(require("node:fs").readFileSync(require("node:path").join(__dirname, ${JSON.stringify(`${name}.wasm`)})))`;
  fs.writeFileSync(file, source.replace(found[0][0], `/* scripts/build-query-compilers.mjs: the compiler decoded at build time */ ${replacement}`));
}

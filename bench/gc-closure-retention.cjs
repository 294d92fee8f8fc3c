#!/usr/bin/env node
// What the hub row's full collections come from (docs/performance.md, "What sets the hub row's p99"):
// on Node 20's V8, a function stored into a property of an object keeps its scope alive through the
// young generation's collections (scavenges) after nothing reaches it any more, until a full collection.
// A request whose closures are stored that way (a callback set on a task, a handler on an object) has
// everything those scopes reach — its answer — promoted to the old generation.
//
// `node bench/gc-closure-retention.cjs` runs the same loop twice, each in a process of its own
// with --trace-gc-nvp: 600 answers of 800 small objects, each awaited from a timer and dropped. The
// second run also stores, in each turn, a closure over the promise's resolve function into an object
// that is dropped at once. Printed: the bytes the scavenges promoted, and the full collections.
"use strict";
const { spawnSync } = require("node:child_process");

if (process.argv[2] === "--loop") {
  const storeClosure = process.argv[3] === "store";
  const answer = () => Array.from({ length: 800 }, (_, i) => ({ id: `art_${i}`.padEnd(44, "x"), depth: 1, upstreamCount: i }));
  void (async () => {
    for (let i = 0; i < 600; i++) {
      const value = await new Promise((resolve) => {
        if (storeClosure) {
          const holder = {};
          holder.callback = () => resolve; // unreachable as soon as this block ends
        }
        setTimeout(() => resolve(answer()), 2);
      });
      JSON.stringify(value);
    }
  })();
} else {
  for (const mode of ["plain", "store"]) {
    const run = spawnSync(process.execPath, ["--trace-gc-nvp", __filename, "--loop", mode], { encoding: "utf8" });
    if (run.status !== 0) throw new Error(`the ${mode} loop failed: ${run.stderr}`);
    let promoted = 0;
    let scavenges = 0;
    let full = 0;
    for (const line of run.stdout.split("\n")) {
      if (/\bgc=s\b/.test(line)) {
        scavenges++;
        promoted += Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0);
      } else if (/\bgc=mc\b/.test(line)) full++;
    }
    console.log(`${mode === "plain" ? "answers only           " : "and a closure stored   "}: ${scavenges} scavenges promoted ${(promoted / 1e6).toFixed(2)} MB; ${full} full collections`);
  }
}

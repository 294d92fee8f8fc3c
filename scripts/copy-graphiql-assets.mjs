#!/usr/bin/env node
// Part of `npm run build:server`: copies GraphiQL's prebuilt page (scripts, styles, editor workers, licence)
// from @graphql-yoga/graphiql, a build-time dependency, into dist/graphiql/. The installed package serves
// these files and never installs @graphql-yoga/graphiql itself: its dependency tree (React, Monaco, graphql 15
// and 17 for the editor's own parser) would otherwise land beside provgraph in a project that installs it,
// where a graphql other than provgraph's 16 can end up as the one graphql-yoga loads.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const root = path.join(path.dirname(new URL(import.meta.url).pathname), "..");
const source = path.dirname(require.resolve("@graphql-yoga/graphiql/package.json"));
const target = path.join(root, "dist", "graphiql");
const { version, license } = JSON.parse(fs.readFileSync(path.join(source, "package.json"), "utf8"));

fs.rmSync(target, { recursive: true, force: true });
fs.cpSync(path.join(source, "dist"), target, { recursive: true, filter: (file) => !file.endsWith(".es.js") });
fs.copyFileSync(path.join(source, "LICENSE"), path.join(target, "LICENSE"));
fs.writeFileSync(path.join(target, "package.json"), `${JSON.stringify({ name: "@graphql-yoga/graphiql", version, license }, null, 2)}\n`);

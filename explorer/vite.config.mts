import path from "node:path";
import { defineConfig } from "vite";

/**
 * The Explorer is served by provgraph under /explorer/ from dist/explorer (src/http/explorer-route.ts):
 * hashed file names, so the server may cache them for good; nothing is fetched from elsewhere at run time.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: "/explorer/",
  publicDir: false,
  build: {
    outDir: path.resolve(import.meta.dirname, "../dist/explorer"),
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    // The page's own script and one vendor chunk; ELK (the layout) is split out and loaded by a worker when needed.
    rolldownOptions: {
      // React Flow marks its entry "use client" (for server components); a page bundle has no use for it.
      onLog: (level, log, handler) => (log.code === "MODULE_LEVEL_DIRECTIVE" || log.code === "PLUGIN_TIMINGS" ? undefined : handler(level, log)),
      output: { codeSplitting: { groups: [{ name: "vendor", test: /node_modules[\\/](react|react-dom|scheduler|@xyflow|d3-|zustand|classcat|graphql-ws)/ }] } },
    },
  },
  worker: { format: "es" },
  // `npm run explorer:dev`: the page from source with hot reload, its API calls passed to a running provgraph.
  server: {
    port: 46173,
    strictPort: false,
    proxy: { "/graphql": { target: process.env.PROVGRAPH_URL ?? "http://127.0.0.1:4000", ws: true, changeOrigin: true } },
  },
});

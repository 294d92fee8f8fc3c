import { exitOnStartupFailure, serve } from "./serve";

// `npm start` (node dist/src/main.js) and `npm run dev` (tsx src/main.ts); `provgraph serve` runs the same.
serve().catch(exitOnStartupFailure);

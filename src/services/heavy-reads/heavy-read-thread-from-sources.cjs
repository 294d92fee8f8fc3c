// A heavy-read thread started from the TypeScript sources (jest, `npm run dev`, tsx): registers
// tsx's loader in this thread, then loads the thread's module. The built server (dist/) starts
// the compiled heavy-read-thread.js directly and never needs this file.
require("tsx/cjs/api").register();
module.exports = require("./heavy-read-thread.ts");

/** The stall test (a real server process, heavy requests, /healthz probed meanwhile): `npm run test:stall`, run by .ci/run alone, in band. */
const base = require("./jest.config");

/** @type {import('jest').Config} */
module.exports = { ...base, testMatch: ["<rootDir>/test/stall/**/*.test.ts"], testPathIgnorePatterns: ["/node_modules/"] };

/** The crash and fuzz suites (issue 13): `npm run test:reliability`, run by .ci/run after the suite. */
const base = require("./jest.config");

/** @type {import('jest').Config} */
// A fuzz property runs thousands of cases in one test: 60 s was three times what it needs on an idle
// machine, but a busy one ran out of it, and the timed-out property kept sending while the next
// test counted table rows (its "failures" were the previous test's writes).
module.exports = { ...base, testMatch: ["<rootDir>/test/crash/**/*.test.ts", "<rootDir>/test/fuzz/**/*.test.ts"], testPathIgnorePatterns: ["/node_modules/"], testTimeout: 300_000 };

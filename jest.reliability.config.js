/** The crash and fuzz suites (issue 13): `npm run test:reliability`, run by .ci/run after the suite. */
const base = require("./jest.config");

/** @type {import('jest').Config} */
module.exports = { ...base, testMatch: ["<rootDir>/test/crash/**/*.test.ts", "<rootDir>/test/fuzz/**/*.test.ts"], testPathIgnorePatterns: ["/node_modules/"] };

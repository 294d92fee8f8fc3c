/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  // the generated Prisma client imports "./x.js" (tsconfig module node16); map to the .ts sources
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  // explorer/test: the web page's own tests (component tests under jsdom, browser tests in Chromium).
  testMatch: ["<rootDir>/test/**/*.test.ts", "<rootDir>/plugins/**/*.test.ts", "<rootDir>/explorer/test/**/*.test.ts?(x)"],
  // *.pg.test.ts need PostgreSQL (several server processes on one database): run on the PostgreSQL pass only;
  // *.sqlite-only.test.ts do not depend on the database under test (the packed package on its embedded default), or test
  // the SQLite driver itself (statements prepared once): the SQLite pass only.
  // The crash and fuzz suites choose their own databases and run once per CI run (npm run test:reliability);
  // the stall test runs alone, in band (npm run test:stall).
  // The Explorer's browser tests (*.browser.test.ts) drive Chromium through the same API on either database: SQLite pass only.
  testPathIgnorePatterns: [...(process.env.TEST_DATABASE_URL ? ["\\.sqlite-only\\.test\\.ts$", "\\.browser\\.test\\.ts$"] : ["\\.pg\\.test\\.ts$"]), "/node_modules/", "<rootDir>/test/crash/", "<rootDir>/test/fuzz/", "<rootDir>/test/stall/"],
  transform: {
    // The Explorer's components: TSX with React's automatic runtime.
    "^.+\\.tsx$": ["@swc/jest", { jsc: { parser: { syntax: "typescript", tsx: true }, transform: { react: { runtime: "automatic" } } } }],
    "^.+\\.ts$": ["@swc/jest"],
  },
  testTimeout: 60000,
};

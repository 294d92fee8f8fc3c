/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  // the generated Prisma client imports "./x.js" (tsconfig module node16); map to the .ts sources
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  testMatch: ["<rootDir>/test/**/*.test.ts", "<rootDir>/plugins/**/*.test.ts"],
  // *.pg.test.ts need PostgreSQL (several server processes on one database): run on the PostgreSQL pass only.
  // The crash and fuzz suites choose their own databases and run once per CI run (npm run test:reliability).
  testPathIgnorePatterns: [...(process.env.TEST_DATABASE_URL ? [] : ["\\.pg\\.test\\.ts$"]), "/node_modules/", "<rootDir>/test/crash/", "<rootDir>/test/fuzz/"],
  transform: { "^.+\\.tsx?$": ["@swc/jest"] },
  testTimeout: 60000,
};

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  // the generated Prisma client imports "./x.js" (tsconfig module node16); map to the .ts sources
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  testMatch: ["<rootDir>/test/**/*.test.ts", "<rootDir>/plugins/**/*.test.ts"],
  // *.pg.test.ts need PostgreSQL (several server processes on one database): run on the PostgreSQL pass only.
  testPathIgnorePatterns: process.env.TEST_DATABASE_URL ? ["/node_modules/"] : ["/node_modules/", "\\.pg\\.test\\.ts$"],
  transform: { "^.+\\.tsx?$": ["@swc/jest"] },
  testTimeout: 60000,
};

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  // the generated Prisma client imports "./x.js" (tsconfig module node16); map to the .ts sources
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  testMatch: ["<rootDir>/test/**/*.test.ts", "<rootDir>/plugins/**/*.test.ts"],
  transform: { "^.+\\.tsx?$": ["@swc/jest"] },
  testTimeout: 60000,
};

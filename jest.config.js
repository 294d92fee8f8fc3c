/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  // the generated Prisma client imports "./x.js" (tsconfig module node16); map to the .ts sources
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  testMatch: ["<rootDir>/test/**/*.test.ts", "<rootDir>/plugins/**/*.test.ts"],
  // The crash and fuzz suites choose their own databases and run once per CI run (npm run test:reliability).
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/crash/", "<rootDir>/test/fuzz/"],
  transform: { "^.+\\.tsx?$": ["@swc/jest"] },
  testTimeout: 60000,
};

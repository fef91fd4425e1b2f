// Two projects: `unit` (next to the code, no I/O) and `integration` (real redis-server, real local HTTP).
// Workspace packages resolve to their TypeScript sources, so tests never need a build of the package
// under test; spawned processes (worker kill tests, the CLI) run the built dist/ code.
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^@trawl/(api-schema|blob-store|browser|config|crawl|documents|net-guard|observability|queue|scrape-engine|html|llm|search|testing)$': '<rootDir>/packages/$1/src/index.ts',
    '^@trawl/testing/fetcher-conformance$': '<rootDir>/packages/testing/src/fetcher-conformance.ts',
    '^@trawl/(api|worker)$': '<rootDir>/apps/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};
export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,packages}/*/src/**/*.test.ts'],
      testPathIgnorePatterns: ['\\.int\\.test\\.ts$'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,packages}/*/src/**/*.int.test.ts', '<rootDir>/tests/**/*.int.test.ts'],
      slowTestThreshold: 30,
      // Integration tests wait on events, not on time: the limit only catches a hang. Jest's default
      // of 5 s failed tests on a 2-core machine at load 30 (a local fake answering three pages).
      setupFilesAfterEnv: ['<rootDir>/tests/helpers/integration-timeout.ts'],
    },
  ],
};

// Four suites: unit (pure rules), integration (real PostgreSQL), e2e (both processes, real HTTP
// and websockets), fuzz (seeded generated hostile input against both processes). One embedded PostgreSQL serves the run; each test file gets its own database.
// Transpile only (type checking is `npm run typecheck`), so test start-up stays fast.
const transform = { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] };
const common = { transform, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  maxWorkers: 2,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      setupFilesAfterEnv: [
        '<rootDir>/test/support/setup-timeouts.ts',
        '<rootDir>/test/support/ledger-check-after-all.ts',
      ],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      setupFilesAfterEnv: [
        '<rootDir>/test/support/setup-timeouts.ts',
        '<rootDir>/test/support/ledger-check-after-all.ts',
      ],
    },
    {
      ...common,
      displayName: 'fuzz',
      testMatch: ['<rootDir>/test/fuzz/**/*.test.ts'],
      setupFilesAfterEnv: [
        '<rootDir>/test/support/setup-timeouts.ts',
        '<rootDir>/test/support/ledger-check-after-all.ts',
      ],
    },
  ],
};

import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{server,generator,sdk,test,catalogue,docs,web,bench}/**/*.test.ts'],
    // `.stryker-tmp/`: a mutation run's sandbox copies of the tests, while `npm run mutate` runs beside it.
    exclude: ['**/node_modules/**', '**/dist/**', '**/.stryker-tmp/**'],
    // Type tests (`*.test-d.ts`) run through tsc: openapi-typescript's reading of the contract
    // against the server's and the SDK's types.
    typecheck: {
      enabled: true,
      include: ['**/*.test-d.ts'],
      exclude: ['**/node_modules/**', '**/.stryker-tmp/**'],
      tsconfig: './tsconfig.json',
    },
    // One MediaWiki per run, started only if a test asks for it (test/support/mediawiki.ts).
    globalSetup: ['test/support/mediawiki-global.ts'],
    // Two test files at a time even on two cores (vitest's default leaves one core free, so one file at a time):
    // most of the suite waits on processes, sockets and timers, not on the CPU.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A poll waits for what it polls for, however busy the machine (the test's timeout still bounds it).
    expect: { poll: { timeout: 30_000 } },
  },
});

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
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A poll waits for what it polls for, however busy the machine (the test's timeout still bounds it).
    expect: { poll: { timeout: 30_000 } },
  },
});

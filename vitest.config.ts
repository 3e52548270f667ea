import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{server,generator,sdk,test,catalogue,docs,web,bench}/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // Type tests (`*.test-d.ts`) run through tsc: openapi-typescript's reading of the contract
    // against the server's and the SDK's types.
    typecheck: { enabled: true, include: ['**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    // One MediaWiki per run, started only if a test asks for it (test/support/mediawiki.ts).
    globalSetup: ['test/support/mediawiki-global.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

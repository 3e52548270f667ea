/**
 * `npm run test:fast`: the inner loop. Every test that needs nothing outside npm (no PostgreSQL, Chromium, nginx or
 * MediaWiki: their tests skip, as `CONSILIUM_SKIP_SERVICES` makes them) and runs no process of the repository's own
 * (`npm start`, the bins, the packed SDK), with the property tests at a fifth of their runs and no type tests
 * (`npm run typecheck` checks types). `npm test` runs everything, in full.
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        // Services: the browser, a cluster behind nginx, a live MediaWiki.
        'test/ui/**',
        'test/cluster/**',
        'test/wiki/live/**',
        // Processes: `npm start` as a user runs it, the bins, and the packed SDK installed into consumer projects.
        'test/e2e/**',
        'test/sessions/crash.test.ts',
        'test/sdk/packed.test.ts',
        'test/sdk/cli.test.ts',
        'test/auth/users-cli.test.ts',
        'generator/src/cli.test.ts',
        'sdk/src/wiki/codegen/cli.test.ts',
      ],
      typecheck: { enabled: false },
      env: { CONSILIUM_SKIP_SERVICES: 'postgres,chromium,mediawiki,nginx', CONSILIUM_PROPERTY_RUNS_SCALE: '0.2' },
    },
  }),
);

/**
 * The vitest configuration Stryker runs: the files of one folder's related tests only, named by
 * `CONSILIUM_MUTATE_TESTS` (comma-separated globs) that `run.ts` sets from the folder's entry. Type
 * tests are off: a mutant is killed by behaviour.
 */
import { defineConfig } from 'vitest/config';

const include = (process.env.CONSILIUM_MUTATE_TESTS ?? '').split(',').filter(Boolean);
if (include.length === 0) throw new Error('CONSILIUM_MUTATE_TESTS names no test files: run `npm run mutate`');

export default defineConfig({
  test: {
    include,
    exclude: ['**/node_modules/**', '**/dist/**', '.stryker-tmp/**'],
    typecheck: { enabled: false },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 30_000 } },
  },
});

import { beforeEach } from 'vitest';

/**
 * Runs `setup` once, in a `beforeEach` of the first test that runs, instead of in `beforeAll`. Same effect on the
 * tests; but StrykerJS (`coverageAnalysis: perTest`) counts code run in `beforeAll` as covered by no test in
 * particular ("static"), and reruns every test of the folder for each mutant there. Run by a test, the setup's
 * code is that test's, and a mutant run that picks any test of the file runs the setup again first.
 * What only the setup runs (building the app) is then covered by the first test alone, which judges its mutants.
 * If `setup` fails, every test of the file fails with its error, as with `beforeAll`.
 */
export function beforeFirstTest(setup: () => Promise<void>): void {
  let ready: Promise<void> | undefined;
  beforeEach(async () => {
    ready ??= setup();
    await ready;
  });
}

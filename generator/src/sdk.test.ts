import { describe, expect, it } from 'vitest';
import { withoutTsx } from './sdk.js';

describe('withoutTsx', () => {
  it("drops the flags that load tsx and keeps the others, for hey-api's worker", () => {
    expect(withoutTsx(['--import', 'tsx', '--cpu-prof', '--import=tsx', '--require', 'tsx/cjs', '-r', 'tsx'])).toEqual([
      '--cpu-prof',
    ]);
    expect(withoutTsx(['--import', './other.mjs', '--max-old-space-size=512', '--loader=tsx/esm'])).toEqual([
      '--import',
      './other.mjs',
      '--max-old-space-size=512',
    ]);
  });
});

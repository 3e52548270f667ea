import { describe, expect, it } from 'vitest';
import { withoutTsx, withTypedStreams } from './sdk.js';

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

describe('withTypedStreams', () => {
  const heyApiOutput = [
    '// header',
    '',
    "import { createClient, createConfig } from './client/index.js';",
    "import type { ClientOptions as ClientOptions2 } from './types.gen.js';",
    '',
    "export const client = createClient(createConfig<ClientOptions2>({ baseUrl: 'http://127.0.0.1:8787' }));",
    '',
  ].join('\n');

  it("wraps hey-api's default client and imports the wrapper after the last import", () => {
    expect(withTypedStreams(heyApiOutput).split('\n').slice(2)).toEqual([
      "import { createClient, createConfig } from './client/index.js';",
      "import type { ClientOptions as ClientOptions2 } from './types.gen.js';",
      "import { typedStreams } from '../streams.js';",
      '',
      "export const client = typedStreams(createClient(createConfig<ClientOptions2>({ baseUrl: 'http://127.0.0.1:8787' })));",
      '',
    ]);
  });

  it('fails generation when hey-api creates the client some other way', () => {
    expect(() => withTypedStreams(heyApiOutput.replace('export const client', 'export let client'))).toThrow(/found 0/);
    expect(() => withTypedStreams(`${heyApiOutput}export const client = createClient({});\n`)).toThrow(/found 2/);
  });
});

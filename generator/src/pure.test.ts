import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { markZodCallsPure, schemasReachedFrom } from './pure.js';

const SDK_SCHEMAS = new URL('../../sdk/src/generated/zod.gen.ts', import.meta.url).pathname;
const SDK_FUNCTIONS = new URL('../../sdk/src/generated/sdk.gen.ts', import.meta.url).pathname;

/** The top-level `var`s esbuild keeps of an entry, bundled and tree-shaken, identifiers unminified. */
async function keptConstants(contents: string, resolveDir: string): Promise<Set<string>> {
  const result = await build({
    stdin: { contents, resolveDir, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return new Set([...result.outputFiles[0]!.text.matchAll(/^var (z[A-Z]\w*) =/gm)].map((m) => m[1]!));
}

describe('markZodCallsPure', () => {
  const file = [
    "import * as z from 'zod/mini';",
    "import { other } from './other.js';",
    'export const zA = z.int().check(z.gte(1));',
    'export const zB = z.object({ a: zA, at: z.iso.datetime(), b: other(1), c: other.x(z.string()) });',
  ].join('\n');

  it('marks every call on the zod/mini namespace, each call of a chain, and no other call', () => {
    expect(markZodCallsPure(file).split('\n').slice(2)).toEqual([
      'export const zA = /* @__PURE__ */ /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.gte(1));',
      'export const zB = /* @__PURE__ */ z.object({ a: zA, at: /* @__PURE__ */ z.iso.datetime(), b: other(1), c: other.x(/* @__PURE__ */ z.string()) });',
    ]);
  });

  it('leaves a file without a zod/mini namespace import as it is', () => {
    const full = file.replace("'zod/mini'", "'zod'");
    expect(markZodCallsPure(full)).toBe(full);
  });

  it('lets a bundler drop an unused schema, which it keeps unmarked', async () => {
    const dir = new URL('.', import.meta.url).pathname;
    const schemas =
      "import * as z from 'zod/mini';\nexport const zA = z.int().check(z.gte(1));\nexport const zB = z.object({ a: z.string() });\n";
    const entry = (text: string) => `${text}\nexport const used = zA;\n`.replace(/export const zB/, 'const zB');
    expect(await keptConstants(entry(schemas), dir)).toEqual(new Set(['zA', 'zB']));
    expect(await keptConstants(entry(markZodCallsPure(schemas)), dir)).toEqual(new Set(['zA']));
  });
});

describe("the SDK's generated schemas", () => {
  it('a bundle of the deep-debate stream carries exactly the schemas its validator reaches', async () => {
    const text = readFileSync(SDK_SCHEMAS, 'utf8');
    // The schema the generated function validates each event with, read from the function itself.
    const validator = /export const streamDeepDebate\b[\s\S]*?await (z\w+)\.parseAsync/.exec(
      readFileSync(SDK_FUNCTIONS, 'utf8'),
    )?.[1];
    expect(validator).toBeDefined();
    const reached = schemasReachedFrom(text, [validator!]);
    const kept = await keptConstants(
      "export { createConsiliumClient } from './client.js';\nexport { streamDeepDebate } from './generated/sdk.gen.js';\n",
      new URL('../../sdk/src/', import.meta.url).pathname,
    );
    expect(kept).toEqual(reached);
    // Not vacuous: the file holds many schemas the stream never reads (users, tokens, requests).
    expect([...text.matchAll(/^export const z\w+/gm)].length).toBeGreaterThan(reached.size * 1.5);
  });
});

import { readFileSync } from 'node:fs';
import type { JSONSchema7 } from '@ai-sdk/provider';
import { zodSchema } from 'ai';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { z } from 'zod';
import { zConsensus, zVerdict } from '../../generated/schemas/zod.gen.js';
import { sampleJson, slug } from './json-sample.js';
import { seededRng } from './seeded-random.js';

const WORDS = ['caching', 'latency', 'rollout'];
const SEEDS = 40;

/** Simple checks for the formats the sampler emits; ajv ships none without ajv-formats. */
const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
  date: /^\d{4}-\d\d-\d\d$/,
  time: /^\d\d:\d\d:\d\dZ$/,
  email: /^[^\s@]+@[^\s@]+\.[a-z]+$/,
  uri: /^https:\/\/\S+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  ipv4: /^192\.0\.2\.\d{1,3}$/,
  hostname: /^[a-z0-9.-]+$/,
};

function draft7(schema: object): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false });
  for (const [name, re] of Object.entries(FORMATS)) ajv.addFormat(name, re);
  return ajv.compile(schema);
}

function expectValid(validate: ValidateFunction, value: unknown) {
  const ok = validate(value);
  expect(ok, `${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`).toBe(true);
}

describe('sampleJson against the contract schemas the engine will pass', () => {
  it.each([
    ['Verdict', zVerdict],
    ['Consensus', zConsensus],
  ] as const)('%s: every sample passes ajv and the zod schema', async (_name, zod) => {
    // The JSON Schema the AI SDK sends as responseFormat.schema for Output.object({ schema }).
    const schema = (await zodSchema(zod as z.ZodType).jsonSchema) as JSONSchema7;
    const validate = draft7(schema);
    for (let seed = 0; seed < SEEDS; seed++) {
      const value = sampleJson(schema, seededRng(`seed-${seed}`), WORDS);
      expectValid(validate, value);
      expect(zod.safeParse(value).success).toBe(true);
    }
  });

  it('every component schema of openapi.yaml (OAS 3.1, $refs between components) yields valid samples', () => {
    const doc = parse(readFileSync(new URL('../../../../openapi/openapi.yaml', import.meta.url), 'utf8')) as {
      components: { schemas: Record<string, JSONSchema7> };
    };
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    for (const [name, re] of Object.entries(FORMATS)) ajv.addFormat(name, re);
    ajv.addSchema({ $id: 'https://consilium.test/openapi', components: doc.components });
    const names = Object.keys(doc.components.schemas);
    expect(names.length).toBeGreaterThan(40);
    for (const name of names) {
      const validate = ajv.getSchema(`https://consilium.test/openapi#/components/schemas/${name}`)!;
      for (let seed = 0; seed < 10; seed++) {
        // The root is the whole document, so "#/components/schemas/X" resolves.
        const value = sampleJson(
          { $ref: `#/components/schemas/${name}`, components: doc.components } as JSONSchema7,
          seededRng(`${name}${seed}`),
          WORDS,
        );
        expectValid(validate, value);
      }
    }
  });
});

const KITCHEN_SINK: JSONSchema7 = {
  type: 'object',
  definitions: {
    priority: { type: 'string', enum: ['P0', 'P1', 'P2'] },
    action: {
      type: 'object',
      required: ['title', 'priority'],
      properties: { title: { type: 'string', minLength: 3, maxLength: 40 }, priority: { $ref: '#/definitions/priority' } },
      additionalProperties: false,
    },
  },
  required: [
    'kind',
    'count',
    'ratio',
    'tags',
    'actions',
    'when',
    'id',
    'code',
    'pair',
    'maybe',
    'choice',
    'both',
    'extra',
    'version',
  ],
  properties: {
    kind: { const: 'verdict' },
    count: { type: 'integer', minimum: 3, maximum: 7 },
    ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    step: { type: 'number', minimum: 0, maximum: 2, multipleOf: 0.25 },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 3, maxItems: 3, uniqueItems: true },
    actions: { type: 'array', items: { $ref: '#/definitions/action' }, minItems: 1 },
    when: { type: 'string', format: 'date-time' },
    id: { type: 'string', format: 'uuid' },
    code: { type: 'string', pattern: '^tok_[0-9A-Za-z]{6,40}$' },
    pair: { type: 'array', items: [{ type: 'integer' }, { type: 'boolean' }], minItems: 2 },
    maybe: { type: ['string', 'null'], maxLength: 12 },
    choice: { oneOf: [{ type: 'null' }, { type: 'integer', minimum: 10, maximum: 10 }] },
    both: {
      allOf: [
        { type: 'object', required: ['a'], properties: { a: { type: 'boolean' } } },
        { required: ['b'], properties: { b: { type: 'string' } } },
      ],
    },
    extra: { type: 'object', minProperties: 2, additionalProperties: { type: 'integer', minimum: 0 } },
    version: { type: 'string', pattern: '^v\\d+\\.\\d+$' },
    email: { type: 'string', format: 'email' },
    nothing: { type: 'null' },
  },
  additionalProperties: false,
};

describe('sampleJson keywords', () => {
  const validate = draft7(KITCHEN_SINK);
  const samples = Array.from(
    { length: SEEDS },
    (_, seed) => sampleJson(KITCHEN_SINK, seededRng(`k${seed}`), WORDS) as Record<string, unknown>,
  );

  it('satisfies const, bounds, multipleOf, uniqueItems, tuples, nullable types, oneOf, allOf, minProperties, formats, patterns, $ref', () => {
    for (const value of samples) expectValid(validate, value);
  });

  it('is deterministic for a seed and varies across seeds', () => {
    expect(sampleJson(KITCHEN_SINK, seededRng('k0'), WORDS)).toEqual(samples[0]);
    expect(new Set(samples.map((s) => JSON.stringify(s))).size).toBe(SEEDS);
  });

  it('writes meaningful strings: titles and sentences about the keywords, a slug when a pattern wants one', () => {
    const titles = samples.flatMap((s) => (s.actions as { title: string }[]).map((a) => a.title));
    for (const t of titles) expect(t).toMatch(/caching|latency|rollout/);
    const rationale = sampleJson(
      {
        type: 'object',
        required: ['rationale', 'provider'],
        properties: { rationale: { type: 'string' }, provider: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,31}$' } },
      },
      seededRng('r'),
      WORDS,
    ) as { rationale: string; provider: string };
    expect(rationale.rationale).toMatch(/^[A-Z].*(caching|latency|rollout).*[.?]$/);
    expect(rationale.provider).toMatch(/^[a-z]+(-[a-z]+)*$/);
  });

  it('meets minLength by adding sentences and maxLength by cutting at a word', () => {
    const long = sampleJson({ type: 'string', minLength: 300 }, seededRng('l'), WORDS) as string;
    expect(long.length).toBeGreaterThanOrEqual(300);
    const short = sampleJson({ type: 'string', maxLength: 20 }, seededRng('s'), WORDS) as string;
    expect(short.length).toBeLessThanOrEqual(20);
    expect(short).not.toMatch(/\s$/);
  });

  it('accepts boolean schemas and schemas without a type', () => {
    expect(typeof sampleJson(true, seededRng('t'), WORDS)).toBe('string');
    expect(sampleJson(false, seededRng('f'), WORDS)).toBeNull();
    expect(sampleJson({ properties: { a: { type: 'integer' } }, required: ['a'] }, seededRng('o'), WORDS)).toMatchObject({
      a: expect.any(Number),
    });
  });

  it('refuses a $ref it cannot resolve', () => {
    expect(() => sampleJson({ $ref: 'https://example.com/schema.json' }, seededRng('x'), WORDS)).toThrow(/cannot resolve/);
    expect(() => sampleJson({ $ref: '#/definitions/missing' }, seededRng('x'), WORDS)).toThrow(/cannot resolve/);
  });
});

describe('slug', () => {
  it('lowercases, strips accents and joins words with hyphens', () => {
    expect(slug('Review Caching and Latency!')).toBe('review-caching-and-latency');
    expect(slug('  Crème brûlée  ')).toBe('creme-brulee');
  });
});

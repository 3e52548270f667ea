/**
 * Fuzzing every operation of the contract over HTTP: generated path parameters, queries, headers and bodies,
 * valid (drawn from the operation's own schemas) and invalid (mutated, random, hostile), sent one at a time.
 * Whatever is sent: no 5xx, every rejection is problem+json, a rejected request writes no row, and every status is one
 * the contract documents for the operation (or, for all of them at once, in its description).
 *
 * `CONSILIUM_FUZZ_RUNS` sets the requests per operation (default 60, about 30 s for all; e.g. 3000 for a deep run).
 * A new operation in the contract is fuzzed with no new test code.
 */
import fc from 'fast-check';
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { zOpenAiError, zProblem } from '../../sdk/src/generated/zod.gen.js';
import { documentFields, operationSecurity, routes } from '../../server/src/generated/routes.js';
import { sampleJson } from '../../server/src/providers/offline/json-sample.js';
import { seededRng } from '../../server/src/providers/offline/seeded-random.js';
import { rawRequest } from '../support/raw-http.js';
import { type RunningServer, startServer } from '../support/server.js';

const RUNS = Number(process.env.CONSILIUM_FUZZ_RUNS || 60);

interface Operation {
  responses: Record<string, unknown>;
  method: string;
  path: string;
  operationId: string;
  tags: string[];
  request?: {
    params?: z.ZodType;
    query?: z.ZodType;
    headers?: z.ZodType;
    body?: { content: Record<string, { schema: z.ZodType }> };
  };
}
const operations = Object.values(routes) as unknown as Operation[];

/**
 * Headers that authenticate the fuzzer as an admin, so every request reaches its handler rather than a 401 or 403.
 * (The auth test covers what happens without them.)
 */
let authorization: Record<string, string> = {};
const credentials = (): Record<string, string> => authorization;

let server: RunningServer;
let db: sqlite3.Database;
/** Whether the last request was accepted, so its writes may still be landing. */
let lastAccepted = true;
/**
 * Ids of sessions, a user and a token that exist when an operation's run starts, so path parameters hit real rows as
 * well as missing ones. Made afresh for each operation: one run may delete or revoke them (deleteUser once removed the
 * only user early, leaving updateUser and resetUserPassword, run after it, with missing ids alone).
 */
let knownIds: string[] = [];
let made = 0;

beforeAll(async () => {
  server = await startServer();
  authorization = (await server.admin()).headers;
  db = new sqlite3.Database(server.config.database, sqlite3.OPEN_READONLY);
});
beforeEach(async () => {
  const post = async (path: string, body: unknown) => {
    const res = await server.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...credentials() },
      body: JSON.stringify(body),
    });
    expect(res.status, `${path}: ${res.status}`).toBeLessThan(300);
    return (await res.json()) as { sessionId?: string; user?: { id: string }; id?: string };
  };
  made++;
  knownIds = [
    (await post('/consilium', { question: `Fuzz ${made}, one?` })).sessionId!,
    (await post('/consilium', { question: `Fuzz ${made}, two?` })).sessionId!,
    (await post('/users', { username: `fuzzed-${made}`, role: 'user' })).user!.id,
    (await post('/auth/tokens', { name: `fuzzed-${made}` })).id!,
  ];
  expect(knownIds.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
});
afterAll(async () => {
  await new Promise((resolve) => db.close(resolve));
  await server.close();
});

/** One query giving the row count of every table, as one comparable string (built once: the tables don't change). */
let countSql: string | undefined;

/** Row counts of every table, as one comparable string. */
async function rowCounts(): Promise<string> {
  const all = <T>(sql: string) =>
    new Promise<T[]>((resolve, reject) => db.all(sql, (err, rows) => (err ? reject(err) : resolve(rows as T[]))));
  if (countSql === undefined) {
    const tables = await all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    );
    countSql = `SELECT ${tables.map(({ name }) => `'${name}=' || (SELECT count(*) FROM "${name}")`).join(" || ' ' || ")} AS counts`;
  }
  return (await all<{ counts: string }>(countSql))[0]!.counts;
}

/**
 * Waits until no debate runs, by the recorder's own count (a detached start, 202, runs on after its response, and its
 * last writes land after it), then for the archives its ends started: after that nothing writes until the next request.
 * (A pause between two writes is no proof that a run has ended: on a loaded machine one lasted more than 10 ms.)
 */
async function settledRowCounts(): Promise<string> {
  // The recorder lets a run go once its last step has committed, after which its archive is queued.
  while (server.sessions.recorder.running > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  await server.database.sessions.archivesDone();
  return rowCounts();
}

/** Each schema's JSON Schema, converted once: converting per sample was most of the fuzzer's own CPU. */
const jsonSchemas = new WeakMap<z.ZodType, unknown>();

/** A value valid for `schema`, drawn deterministically from `seed`. */
function validFor(schema: z.ZodType, seed: number): unknown {
  let json = jsonSchemas.get(schema);
  if (json === undefined) {
    json = z.toJSONSchema(schema, { target: 'draft-7', unrepresentable: 'any', io: 'input' });
    jsonSchemas.set(schema, json);
  }
  return sampleJson(json as never, seededRng(String(seed)), ['fuzz', 'sessions', 'owner']);
}

const HOSTILE_STRINGS = [
  '',
  ' ',
  'a\ud800b',
  'nul\0',
  '\udfff',
  '<img src=x onerror=alert(1)>',
  '../../etc/passwd',
  '%00',
  'x'.repeat(5000),
  '😀',
  '\u202e',
];

/** Any JSON value, plus the hostile strings, at any depth. */
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom('question', 'rounds', 'answers', 'slot', 'text', 'budget', 'sessionId')),
      tie('value'),
      { maxKeys: 5 },
    ),
  ),
})).value;

/** A valid value, or one with a field replaced, removed or added. */
function mutated(schema: z.ZodType) {
  return fc.tuple(fc.integer(), fc.nat(), jsonish, fc.nat(3)).map(([seed, pick, replacement, how]) => {
    const valid = validFor(schema, seed);
    if (how === 0 || valid === null || typeof valid !== 'object') return valid;
    const copy = structuredClone(valid) as Record<string, unknown>;
    const keys = Object.keys(copy);
    const key = keys[pick % Math.max(1, keys.length)];
    if (how === 1 && key !== undefined) copy[key] = replacement;
    else if (how === 2 && key !== undefined) delete copy[key];
    else copy[`extra${pick % 3}`] = replacement;
    return copy;
  });
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/problem+json',
  '',
];

interface FuzzRequest {
  path: string;
  init: { method: string; headers: Record<string, string>; body?: string };
}

function pathValue(name: string, schema: z.ZodType | undefined) {
  const valid = schema && (schema as z.ZodObject).shape?.[name];
  return fc
    .oneof(
      fc.constantFrom(...knownIds, 'anthropic', 'openai', 'ses_000000000000', 'tok_abcdef'),
      valid ? fc.integer().map((seed) => String(validFor(valid as z.ZodType, seed))) : fc.constant('x'),
      fc.constantFrom(...HOSTILE_STRINGS).filter((s) => s !== ''),
      fc.string({ minLength: 1 }),
    )
    .map(encodePathValue);
}

/** Percent-encoded; a lone surrogate becomes the bytes of one (which are not UTF-8); `%XX` kept as sent. */
function encodePathValue(value: string): string {
  const wellFormed = value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\u0001');
  return encodeURIComponent(wellFormed)
    .replace(/%01/g, '%ED%A0%80')
    .replace(/%25(?=[0-9A-F]{2})/g, '%');
}

function requestFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const params = fc.tuple(...names.map((n) => pathValue(n, op.request?.params)));
  const query = op.request?.query
    ? fc.oneof(mutated(op.request.query), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }))
    : fc.oneof(fc.constant(undefined), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));
  const headerValues = op.request?.headers ? fc.oneof(mutated(op.request.headers), fc.constant({})) : fc.constant({});
  const bodySchema = op.request?.body?.content['application/json']?.schema;
  const body = bodySchema
    ? fc.oneof(
        { weight: 3, arbitrary: mutated(bodySchema).map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: jsonish.map((v) => JSON.stringify(v)) },
        {
          weight: 1,
          arbitrary: fc.oneof(
            fc.string(),
            fc.constantFrom('{"question":"a\\ud800b"}', '{"question":', '{', '[]', 'null', '"\\u0000"'),
          ),
        },
        { weight: 1, arbitrary: fc.constant(undefined) },
      )
    : fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: jsonish.map((v) => JSON.stringify(v)) });
  const contentType = bodySchema
    ? fc.oneof(
        { weight: 5, arbitrary: fc.constant('application/json') },
        { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      )
    : fc.constantFrom(...CONTENT_TYPES);
  return fc
    .record({ params, query, headerValues, body, contentType })
    .map(({ params, query, headerValues, body, contentType }) => {
      let i = 0;
      let path = op.path.replace(/\{\w+\}/g, () => params[i++]!);
      if (query && typeof query === 'object') {
        const search = new URLSearchParams();
        for (const [k, v] of Object.entries(query)) search.append(k, typeof v === 'string' ? v : JSON.stringify(v));
        if (search.size > 0) path += `?${search}`;
      }
      const headers: Record<string, string> = { ...credentials() };
      if (contentType) headers['content-type'] = contentType;
      if (headerValues && typeof headerValues === 'object') {
        for (const [k, v] of Object.entries(headerValues)) {
          const value = typeof v === 'string' ? v : JSON.stringify(v);
          // fetch refuses header values it cannot send; those never reach a server.
          if (/^[\t\x20-\x7e]*$/.test(value) && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)) headers[k] = value;
        }
      }
      return { path, init: { method: op.method.toUpperCase(), headers, ...(body !== undefined && { body }) } };
    });
}

/**
 * The statuses the contract gives an operation: its own responses, and those `info.description` promises any request
 * (405, 408, 421, 500), each checked to be there so the list below cannot drift from it. 413 and 431, which any
 * operation may answer too, each operation lists itself.
 */
const ANY_REQUEST = [405, 408, 421, 500];
function documented(op: Operation): number[] {
  return [...Object.keys(op.responses).map(Number), ...ANY_REQUEST];
}

it('the statuses any request may get are named in the contract’s description', () => {
  const description = documentFields.info.description ?? '';
  for (const status of ANY_REQUEST) expect(description).toMatch(new RegExp(`\`${status} [a-z_]+\``));
});

describe(`fuzzing every operation (${RUNS} requests each)`, () => {
  for (const op of operations) {
    it(`${op.method.toUpperCase()} ${op.path} (${op.operationId})`, async () => {
      const statuses: number[] = [];
      await fc.assert(
        fc.asyncProperty(requestFor(op), async ({ path, init }) => {
          // A debate's last writes may land just after its response: let an accepted request's writes settle first.
          await server.database.sessions.archivesDone();
          const before = lastAccepted ? await settledRowCounts() : await rowCounts();
          // node:http rather than fetch: it sends a GET's body and any header it is given, as clients can.
          const res = await rawRequest(`${server.baseUrl}${path}`, init);
          const what = `${init.method} ${path.slice(0, 200)} ${String(init.body ?? '').slice(0, 300)} → ${res.status} ${res.body.slice(0, 300)}`;
          statuses.push(res.status);
          expect(res.status < 500, what).toBe(true);
          expect(documented(op), `undocumented status: ${what}`).toContain(res.status);
          lastAccepted = res.status < 400;
          if (res.status >= 400) {
            if (op.tags.includes('openai')) {
              // OpenAI's surface answers as OpenAI does, so its clients parse every error.
              expect(res.headers['content-type'], what).toMatch(/^application\/json/);
              const body = JSON.parse(res.body) as object;
              zOpenAiError.parse(body);
              expect(Object.keys(body), what).toEqual(['error']);
            } else {
              expect(res.headers['content-type'], what).toBe('application/problem+json');
              const problem = zProblem.parse(JSON.parse(res.body));
              expect(problem.status, what).toBe(res.status);
            }
            expect(await rowCounts(), `rows written by a rejected request: ${what}`).toBe(before);
          }
        }),
        { numRuns: RUNS },
      );
      // Signed in as an admin, the fuzzer is never turned away for its credentials: its requests reach validation and the
      // handlers. (A public operation such as login answers 401 for the wrong password it was sent.)
      if (operationSecurity[op.operationId as keyof typeof routes].security.length > 0) {
        expect(statuses.filter((status) => status === 401 || status === 403)).toEqual([]);
      }
    });
  }
});

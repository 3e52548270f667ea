import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { beforeFirstTest } from '../../../test/support/lazy.js';
import { type RunningServer, startServer } from '../../../test/support/server.js';
import { unstorableFields, unstorableText } from './unstorable-text.js';

describe('unstorableText', () => {
  it('names lone surrogates of either half, and NUL', () => {
    expect(unstorableText('a\ud800b')).toMatch(/lone surrogate \(U\+D800\) at index 1/);
    expect(unstorableText('a\udc00')).toMatch(/lone surrogate \(U\+DC00\) at index 1/);
    expect(unstorableText('\udc00\ud800')).toMatch(/U\+DC00\) at index 0/);
    expect(unstorableText('ab\0')).toMatch(/NUL character \(U\+0000\) at index 2/);
    expect(unstorableText('a\ud800b')).toBe('Contains a lone surrogate (U+D800) at index 1, which cannot be stored as UTF-8.');
    expect(unstorableText('\0a')).toBe('Contains a NUL character (U+0000) at index 0, which cannot be stored.');
  });

  it('accepts every well-formed string without NUL, pairs included', () => {
    expect(unstorableText('emoji 😀, CJK 漢字, \u200b, \t\r\n')).toBeUndefined();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(unstorableText(s)).toBe(s.includes('\0') ? expect.any(String) : undefined);
      }),
    );
  });

  it('agrees with isWellFormed on any UTF-16 string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const wellFormed = (s as string & { isWellFormed(): boolean }).isWellFormed();
        expect(unstorableText(s) === undefined).toBe(wellFormed && !s.includes('\0'));
      }),
      { numRuns: 300 },
    );
  });

  it('skips what is no string, and walks nested arrays', () => {
    expect(unstorableFields({ a: null, b: 3, c: true, d: undefined, e: ['ok', ['\0']] }, 'query')).toEqual([
      { path: 'query.e.1.0', message: expect.stringMatching(/NUL/), code: 'invalid_text' },
    ]);
    expect(unstorableFields('\0', 'header')).toEqual([{ path: 'header', message: expect.any(String), code: 'invalid_text' }]);
    expect(unstorableFields(null, 'body')).toEqual([]);
  });

  it('walks objects and arrays, naming each field by its path', () => {
    expect(
      unstorableFields({ question: 'ok', answers: [{ text: 'x' }, { text: 'y\ud800' }], n: 3, nested: { a: '\0' } }, 'body'),
    ).toEqual([
      { path: 'body.answers.1.text', message: expect.stringMatching(/lone surrogate/), code: 'invalid_text' },
      { path: 'body.nested.a', message: expect.stringMatching(/NUL/), code: 'invalid_text' },
    ]);
  });
});

describe('text that cannot be stored as sent, over HTTP', () => {
  let server: RunningServer;
  // No cache: what is read back comes from the database, as after a restart.
  beforeFirstTest(async () => {
    server = await startServer({ CONSILIUM_SESSION_CACHE: '0' });
  });
  afterAll(() => server?.close());

  const postRaw = (path: string, json: string) =>
    server.fetch(`${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json });

  async function expectInvalidText(res: Response, paths: string[]): Promise<void> {
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(body.code).toBe('validation_failed');
    expect(body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    for (const e of body.errors) expect(e.code).toBe('invalid_text');
  }

  it('refuses a lone surrogate or NUL in a body field with 400 naming it, and stores nothing', async () => {
    // JSON escapes: what a client sends for a JS string holding a lone surrogate.
    await expectInvalidText(await postRaw('/consilium', '{"question":"a\\ud800b"}'), ['body.question']);
    await expectInvalidText(await postRaw('/consilium/deep', '{"question":"a\\udfffb","rounds":2}'), ['body.question']);
    await expectInvalidText(await postRaw('/ask/openai', '{"question":"nul\\u0000here"}'), ['body.question']);
    await expectInvalidText(await postRaw('/consilium/deep/stream', '{"question":"\\ud800"}'), ['body.question']);
    await expectInvalidText(
      await postRaw(
        '/synthesize',
        JSON.stringify({
          question: 'ok',
          answers: [
            { slot: 1, text: 'fine' },
            { slot: 2, text: 'bad\0' },
          ],
        }),
      ),
      ['body.answers.1.text'],
    );
    const list = await (await server.fetch(`/sessions`)).json();
    expect(list.items).toEqual([]);
  });

  it('refuses them in a query parameter', async () => {
    await expectInvalidText(await server.fetch(`/sessions?q=a%00b`), ['query.q']);
  });

  it('stores and reads back every well-formed string exactly, pairs included', async () => {
    const question = 'Emoji 😀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, CJK 漢字, RTL \u202e, zero width \u200b, controls \u0001\u001f';
    const res = await postRaw('/consilium', JSON.stringify({ question }));
    expect(res.status).toBe(200);
    const { sessionId } = await res.json();
    const read = await (await server.fetch(`/sessions/${sessionId}`)).json();
    expect(read.question).toBe(question);
  });
});

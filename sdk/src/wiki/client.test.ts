import { describe, expect, it } from 'vitest';
import { mergeQuery, parseErrors, parseWarnings, retryAfterMs, WikiApiError, WikiClient } from './client.js';

describe('parseWarnings', () => {
  it('reads the array formats (plaintext, html, raw, none)', () => {
    expect(
      parseWarnings([
        { code: 'unrecognizedparams', text: 'Unrecognized parameter: foo.', module: 'main' },
        { code: 'deprecation', html: '<b>old</b>', module: 'query+deletedrevs' },
        { code: 'x', key: 'apiwarn-x', params: ['a'], module: 'main' },
        { code: 'y', module: 'main' },
      ]),
    ).toEqual([
      { code: 'unrecognizedparams', text: 'Unrecognized parameter: foo.', module: 'main' },
      { code: 'deprecation', text: '<b>old</b>', html: '<b>old</b>', module: 'query+deletedrevs' },
      { code: 'x', text: 'apiwarn-x', key: 'apiwarn-x', params: ['a'], module: 'main' },
      { code: 'y', text: '', module: 'main' },
    ]);
  });

  it('reads the bc format, one message per line', () => {
    expect(parseWarnings({ main: { warnings: 'Unrecognized parameter: foo.\nSecond.' }, allpages: { '*': 'x' } })).toEqual([
      { code: 'bc-warning', text: 'Unrecognized parameter: foo.', module: 'main' },
      { code: 'bc-warning', text: 'Second.', module: 'main' },
      { code: 'bc-warning', text: 'x', module: 'allpages' },
    ]);
    expect(parseWarnings(undefined)).toEqual([]);
  });
});

describe('parseErrors', () => {
  it('reads errors arrays and the bc error object', () => {
    expect(parseErrors({ errors: [{ code: 'badvalue', text: 'Bad.', module: 'main', data: { x: 1 } }] })).toEqual([
      { code: 'badvalue', text: 'Bad.', module: 'main', data: { x: 1 } },
    ]);
    expect(parseErrors({ error: { code: 'maxlag', info: 'Lagged.', host: 'db1', lag: 7, docref: 'See…' } })).toEqual([
      { code: 'maxlag', text: 'Lagged.', data: { host: 'db1', lag: 7 } },
    ]);
    expect(parseErrors({ batchcomplete: true })).toEqual([]);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('5')).toBe(5000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', Date.UTC(2015, 9, 21, 7, 28, 0))).toBe(5000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('mergeQuery', () => {
  it('concatenates lists, merges pages by title, dedupes page-set lists, merges objects', () => {
    const a = {
      allpages: [{ title: 'A' }],
      normalized: [{ from: 'a', to: 'A' }],
      pages: [
        { pageid: 1, title: 'A', revisions: [{ revid: 1 }] },
        { title: 'Missing', missing: true },
      ],
      general: { sitename: 'W' },
    };
    const b = {
      allpages: [{ title: 'B' }],
      normalized: [{ from: 'a', to: 'A' }],
      pages: [
        { pageid: 1, title: 'A', revisions: [{ revid: 2 }] },
        { pageid: 2, title: 'B' },
      ],
      general: { lang: 'en' },
    };
    expect(mergeQuery(mergeQuery({}, a), b)).toEqual({
      allpages: [{ title: 'A' }, { title: 'B' }],
      normalized: [{ from: 'a', to: 'A' }],
      pages: [
        { pageid: 1, title: 'A', revisions: [{ revid: 1 }, { revid: 2 }] },
        { title: 'Missing', missing: true },
        { pageid: 2, title: 'B' },
      ],
      general: { sitename: 'W', lang: 'en' },
    });
  });
});

describe('WikiClient', () => {
  it('requires a user agent', () => {
    expect(() => new WikiClient({ apiUrl: 'https://w.example/api.php', userAgent: '' })).toThrow(TypeError);
  });

  it('WikiApiError carries code, info and details', () => {
    const e = new WikiApiError('badvalue', 'Bad.', { module: 'main', status: 200, data: { a: 1 } });
    expect(e).toBeInstanceOf(Error);
    expect([e.code, e.info, e.module, e.status, e.data, e.errors]).toEqual(['badvalue', 'Bad.', 'main', 200, { a: 1 }, []]);
    expect(e.message).toBe('badvalue: Bad.');
  });
});

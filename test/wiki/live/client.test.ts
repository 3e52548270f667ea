/**
 * `WikiClient` against the live MediaWiki 1.39 of `test/support/mediawiki.ts`: continuation over
 * several batches in list, prop and generator mode (the merged result checked against the wiki's
 * seeded pages), errors and warnings in both errorformat styles, POST for long requests, siteinfo
 * loaded once, and a clear error when the URL answers HTML.
 */
import { createServer } from 'node:http';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { allpages } from '../../../sdk/src/generated/wiki/allpages.js';
import { categorymembers } from '../../../sdk/src/generated/wiki/categorymembers.js';
import { info } from '../../../sdk/src/generated/wiki/info.js';
import { revisions } from '../../../sdk/src/generated/wiki/revisions.js';
import { WikiApiError, WikiClient } from '../../../sdk/src/wiki/client.js';
import { query } from '../../../sdk/src/wiki/query.js';
import { WikiParamError } from '../../../sdk/src/wiki/types.js';
import {
  FRUITS,
  HISTORY_PAGE,
  HISTORY_REVISIONS,
  mediawiki,
  startMediaWiki,
  type TestMediaWiki,
} from '../../support/mediawiki.js';

const userAgent = 'ConsiliumTests/1.0 (https://example.invalid; tests@example.invalid)';

describe.skipIf(!mediawiki.available)('WikiClient against a live MediaWiki', () => {
  let wiki: TestMediaWiki;
  let client: WikiClient;
  const sent: { method: string; url: string }[] = [];
  const counting: typeof fetch = async (input, init) => {
    sent.push({ method: init?.method ?? 'GET', url: String(input) });
    return fetch(input, init);
  };

  beforeAll(async () => {
    wiki = await startMediaWiki();
    client = new WikiClient({ apiUrl: wiki.api, userAgent, fetch: counting });
  }, 120_000);

  it('continues a list over several batches; the merged list is every page of the wiki', async () => {
    const all = await client.collect<{ allpages: { title: string }[] }>(query({ list: [allpages({ limit: 4 })] }));
    const once = (await client.request(query({ list: [allpages({ limit: 'max' })] }))) as {
      query: { allpages: { title: string }[] };
    };
    expect(all.batches).toBeGreaterThanOrEqual(5);
    expect(all.complete).toBe(true);
    expect(all.query.allpages.map((p) => p.title)).toEqual(once.query.allpages.map((p) => p.title));
    expect(all.query.allpages.map((p) => p.title)).toEqual(expect.arrayContaining(['Apple', HISTORY_PAGE, ...FRUITS]));
  });

  it('sends each batch as the original request plus the latest continue only, as continue keys come and go', async () => {
    // allpages ends long before categorymembers: its apcontinue leaves the wiki's `continue`, and must leave the request.
    const q = query({ list: [allpages({ limit: 6 }), categorymembers({ title: 'Category:Fruit', limit: 2 })] });
    const batches = [];
    for await (const b of client.batches<{ allpages?: { title: string }[]; categorymembers?: { title: string }[] }>(q))
      batches.push(b);
    expect(batches.length).toBeGreaterThanOrEqual(Math.ceil((FRUITS.length + 1) / 2));
    const keys = batches.map((b) => Object.keys(b.continue ?? {}));
    expect(keys.some((k) => k.includes('apcontinue'))).toBe(true);
    expect(keys.some((k) => k.includes('cmcontinue') && !k.includes('apcontinue'))).toBe(true);
    for (let i = 1; i < batches.length; i++) {
      const { maxlag: _, ...sent } = batches[i]!.params;
      expect(sent).toEqual({ ...q.params, ...batches[i - 1]!.continue });
    }
    const members = batches.flatMap((b) => b.query.categorymembers ?? []).map((m) => m.title);
    expect(new Set(members).size).toBe(members.length);
    expect(members).toHaveLength(FRUITS.length + 1);
    const pages = batches.flatMap((b) => b.query.allpages ?? []).map((m) => m.title);
    expect(new Set(pages).size).toBe(pages.length);
  });

  it('continues a prop over several batches: every revision of a page', async () => {
    const r = await client.collect<{ pages: { title: string; revisions: { revid: number }[] }[] }>(
      query({ titles: [HISTORY_PAGE], prop: [revisions({ limit: 2, prop: ['ids'] })] }),
    );
    expect(r.batches).toBe(Math.ceil(HISTORY_REVISIONS / 2));
    expect(r.query.pages).toHaveLength(1);
    const ids = r.query.pages[0]!.revisions.map((x) => x.revid);
    expect(new Set(ids).size).toBe(HISTORY_REVISIONS);
  });

  it('continues a generator over several batches: the category’s members, with their info', async () => {
    const r = await client.collect<{ pages: { title: string; ns: number; length?: number }[] }>(
      query({ generator: categorymembers.asGenerator({ title: 'Category:Fruit', limit: 3 }), prop: [info()] }),
    );
    expect(r.batches).toBeGreaterThanOrEqual(4);
    expect(r.query.pages.map((p) => p.title).sort()).toEqual(['Apple', ...FRUITS].sort());
    expect(r.query.pages.every((p) => typeof p.length === 'number')).toBe(true);
  });

  it('loads siteinfo once and validates QueryInput against it (namespaces of this wiki)', async () => {
    const fresh = new WikiClient({ apiUrl: wiki.api, userAgent, fetch: counting });
    const before = sent.length;
    await expect(fresh.collect({ list: [allpages({ namespace: 9999 })] })).rejects.toMatchObject({
      name: 'WikiParamError',
      code: 'badvalue',
      param: 'apnamespace',
    });
    const r = await fresh.collect<{ allpages: unknown[] }>({ list: [allpages({ namespace: 10 })] });
    // Other suites seed templates of their own into the run's wiki: every page is a template, the seeded one among them.
    expect(r.query.allpages).toEqual(expect.arrayContaining([{ pageid: expect.any(Number), ns: 10, title: 'Template:Infobox' }]));
    expect(r.query.allpages.every((p) => (p as { ns: number }).ns === 10)).toBe(true);
    const siteRequests = sent.slice(before).filter((s) => s.url.includes('meta=siteinfo'));
    expect(siteRequests).toHaveLength(1);
    expect((await fresh.site())?.apihighlimits).toBe(false);
    // The wiki agrees: the same namespace sent raw is its badvalue too.
    await expect(
      fresh.request({ action: 'query', list: 'allpages', apnamespace: '9999', format: 'json', errorformat: 'plaintext' }),
    ).rejects.toMatchObject({
      code: 'badvalue',
    });
  });

  it('surfaces errors and warnings in the plaintext style, with the API’s codes', async () => {
    const raw = {
      action: 'query',
      list: 'allpages',
      aplimit: '9999',
      apfoo: '1',
      format: 'json',
      formatversion: '2',
      errorformat: 'plaintext',
    };
    const ok = await client.request(raw);
    expect(ok.warnings.map((w) => w.code).sort()).toEqual(['outofrange', 'unrecognizedparams']);
    // The builder says the same before sending.
    expect(
      query({ list: [allpages({ limit: 9999, foo: '1' } as never)] })
        .warnings.map((w) => w.code)
        .sort(),
    ).toEqual(['outofrange', 'unrecognizedparams']);
    const e = await client.request({ ...raw, list: 'recentchanges', rcshow: 'minor|!minor' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(WikiApiError);
    expect(e).toMatchObject({ code: 'show', module: 'query+recentchanges' });
    expect(() => query({ list: [] }).params).not.toThrow();
  });

  it('surfaces errors and warnings in the bc style', async () => {
    const raw = { action: 'query', list: 'allpages', aplimit: '9999', format: 'json', errorformat: 'bc' };
    const ok = await client.request(raw);
    expect(ok.warnings).toEqual([expect.objectContaining({ code: 'bc-warning', module: 'allpages' })]);
    const e = (await client.request({ ...raw, apnamespace: '9999' }).catch((x: unknown) => x)) as WikiApiError;
    expect(e).toBeInstanceOf(WikiApiError);
    expect(e.code).toBe('badvalue');
    expect(e.info).toContain('apnamespace');
  });

  it('POSTs a request too long for a URL, and the wiki answers it', async () => {
    const titles = Array.from({ length: 50 }, (_, i) => `${'Long title '.repeat(18)}${i}`);
    const q = query({ titles, prop: [info()] });
    expect(q.method).toBe('POST');
    const before = sent.length;
    const r = await client.request<{ pages: { title: string; missing?: boolean }[] }>(q);
    expect(sent.slice(before).map((s) => s.method)).toEqual(['POST']);
    expect(r.query.pages).toHaveLength(50);
    expect(r.query.pages.every((p) => p.missing === true)).toBe(true);
  });

  it('says clearly when the URL answers HTML instead of JSON', async () => {
    // index.php's "no such action" page (an HTTP error, HTML), and a 200 HTML page on loopback (a
    // captive portal or a proxy's login page answers like this).
    const portal = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><body>Sign in to continue</body></html>');
    });
    await new Promise<void>((r) => portal.listen(0, '127.0.0.1', r));
    const { port } = portal.address() as { port: number };
    onTestFinished(() => new Promise<void>((r) => portal.close(() => r())));
    for (const [apiUrl, code] of [
      [`http://127.0.0.1:${port}/w/api.php`, 'badresponse'],
      [`${wiki.server}/index.php`, 'http'],
    ] as const) {
      const wrong = new WikiClient({ apiUrl, userAgent, site: false });
      const e = (await wrong.request(query({ list: [allpages()] })).catch((x: unknown) => x)) as WikiApiError;
      expect(e, apiUrl).toBeInstanceOf(WikiApiError);
      expect(e.code, apiUrl).toBe(code);
      expect(e.info, apiUrl).toMatch(/answered with HTML, not JSON: is it the wiki's api\.php/);
    }
  });

  it('builds nothing it cannot send: a builder error never reaches the wiki', async () => {
    const before = sent.length;
    const fresh = new WikiClient({ apiUrl: wiki.api, userAgent, fetch: counting, site: false });
    await expect(fresh.collect({ list: [allpages({ limit: 'lots' as never })] })).rejects.toBeInstanceOf(WikiParamError);
    expect(sent.length).toBe(before);
  });
});

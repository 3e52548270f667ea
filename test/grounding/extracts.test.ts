/**
 * Page text through `prop=extracts` where TextExtracts is installed: the same grounded debate against the suite's
 * extension wiki (TextExtracts loaded) and its core-only wiki, each behind a proxy that records what the source asks.
 * On the extension wiki the pages are read as plain-text extracts (`prop=extracts`, `explaintext`), never as
 * wikitext; on the core-only wiki, as wikitext (`prop=revisions`) reduced to plain text. Both read the same words.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderCatalogue, Session } from '../../sdk/src/index.js';
import { mediawiki, seedPages, startMediaWiki } from '../support/mediawiki.js';
import { type RunningServer, startServer } from '../support/server.js';

const PAGE = 'Grounding Extracts Handbook';
const WIKITEXT =
  "== Schedule ==\nThe '''wombat index''' is rebuilt every Sunday at noon. {{Grounding Extracts Notice}}\n[[Category:Grounding]]";
const SENTENCE = 'The wombat index is rebuilt every Sunday at noon.';
const QUESTION = 'When is the wombat index rebuilt?';

/** A proxy to `upstream` that records each request's query string and body. */
async function recording(upstream: string): Promise<{ api: string; sent: string[]; close(): void }> {
  const sent: string[] = [];
  const proxy: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      sent.push(decodeURIComponent(`${req.url} ${body}`.replace(/\+/g, ' ')));
      const headers: Record<string, string> = {};
      for (const h of ['user-agent', 'content-type', 'cookie']) if (req.headers[h]) headers[h] = String(req.headers[h]);
      const answer = await fetch(`${upstream}${req.url}`, {
        method: req.method!,
        headers,
        ...(req.method === 'POST' && { body }),
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return { api: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api.php`, sent, close: () => proxy.close() };
}

describe.skipIf(!mediawiki.available)('page text as prop=extracts where TextExtracts is installed', () => {
  let server: RunningServer;
  let extended: Awaited<ReturnType<typeof recording>>;
  let core: Awaited<ReturnType<typeof recording>>;

  beforeAll(async () => {
    const [ext, plain] = await Promise.all([startMediaWiki({ extensions: true }), startMediaWiki()]);
    const pages = { [PAGE]: WIKITEXT, 'Template:Grounding Extracts Notice': 'A notice.' };
    await Promise.all([seedPages(pages, { extensions: true }), seedPages(pages)]);
    [extended, core] = await Promise.all([recording(ext.server), recording(plain.server)]);
    server = await startServer({
      CONSILIUM_WIKIS: JSON.stringify({
        'extension-wiki': { api: extended.api, pages: 1 },
        'core-wiki': { api: core.api, pages: 1 },
      }),
    });
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    extended?.close();
    core?.close();
  });

  const debate = async (source: string) => {
    const res = await server.fetch('/consilium/deep', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: QUESTION, rounds: 2, grounding: { source } }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as Session).grounding!;
  };

  it('the siteinfo says which wiki has TextExtracts', async () => {
    const { wikis } = (await (await server.fetch('/providers?check=true')).json()) as ProviderCatalogue;
    expect(wikis?.map((w) => [w.name, w.status, w.extracts])).toEqual([
      ['extension-wiki', 'reachable', true],
      ['core-wiki', 'reachable', false],
    ]);
  });

  it('the extension wiki is read through prop=extracts (plain text), the core-only wiki through its wikitext', async () => {
    const [onExtension, onCore] = [await debate('extension-wiki'), await debate('core-wiki')];
    for (const g of [onExtension, onCore]) {
      expect(g.status).toBe('complete');
      expect(g.pages.map((p) => p.title)).toEqual([PAGE]);
      expect(g.pages[0]!.text).toContain(SENTENCE);
      expect(g.pages[0]!.text).not.toMatch(/'''|\{\{|\[\[/);
      expect(g.unverifiedCitations).toBe(0);
      expect(g.verifiedCitations).toBeGreaterThan(0);
    }
    const reads = (sent: string[]) => sent.filter((r) => r.includes(`titles=${PAGE}`));
    expect(reads(extended.sent).length).toBeGreaterThan(0);
    for (const r of reads(extended.sent)) {
      expect(r).toMatch(/prop=extracts\|info|prop=info\|extracts/);
      expect(r).toContain('explaintext=1');
      expect(r).not.toContain('revisions');
    }
    expect(reads(core.sent).length).toBeGreaterThan(0);
    for (const r of reads(core.sent)) {
      expect(r).toContain('prop=revisions');
      expect(r).not.toContain('extracts');
    }
  });
});

/**
 * Debates grounded in the real MediaWiki 1.39 the suite installs, seeded here with pages whose text the test
 * knows, through the real server on loopback with the offline stand-ins: the retrieval before round 1 (search,
 * page text, revisions), the numbered sources every model is given, the stand-ins' citations verified against
 * the retrieved text, replay and export showing the same sources, another user's 404, the wiki source in
 * `/providers`, an unknown source refused, and a wiki that is down degrading the debate without failing it.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DebateEvent, Grounding, Session } from '../../sdk/src/index.js';
import { Consilium } from '../../sdk/src/index.js';
import { mediawiki, seedPages, startMediaWiki, type TestMediaWiki } from '../support/mediawiki.js';
import { type RunningServer, startServer } from '../support/server.js';
import { startHostileModel } from '../ui/hostile-model.js';

const PAGES = {
  'Grounding Deploy Policy':
    "== Policy ==\nProduction deploys of the '''zebrafish service''' happen on Tuesdays only. {{Deploy notice|name=Deploys}}\nEvery deploy must be rolled back within 15 minutes if the error rate doubles.",
  'Grounding Incident Review':
    'The zebrafish service outage of March was caused by a Friday deploy.\nReviews are written within five working days.',
};
const QUESTION = 'When should we deploy the zebrafish service?';

async function events(server: RunningServer, body: object): Promise<DebateEvent[]> {
  const res = await server.fetch('/consilium/deep/stream', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return text
    .split('\n\n')
    .flatMap((block) => block.split('\n').filter((l) => l.startsWith('data: ')))
    .map((l) => JSON.parse(l.slice(6)) as DebateEvent);
}

describe.skipIf(!mediawiki.available)('debates grounded in a live MediaWiki', () => {
  let wiki: TestMediaWiki;
  let server: RunningServer;
  /** A wiki that goes down: a proxy to the real one, closed on demand. */
  let proxy: Server;
  let proxyUp = true;
  /** Holds every request unanswered until its client gives up (a wiki too slow to wait for). */
  let proxyHolds = false;

  beforeAll(async () => {
    wiki = await startMediaWiki();
    await seedPages(PAGES);
    proxy = createServer(async (req, res) => {
      if (!proxyUp) return req.socket.destroy();
      if (proxyHolds) return;
      const upstream = await fetch(`${wiki.server}${req.url}`, { headers: { 'user-agent': req.headers['user-agent'] ?? '' } });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const flaky = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api.php`;
    server = await startServer({
      CONSILIUM_WIKIS: JSON.stringify({
        'team-wiki': { api: wiki.api, pages: 2, bytesPerPage: 400 },
        flaky: { api: flaky, pages: 2, timeoutMs: 2000 },
        slow: { api: flaky, pages: 2, timeoutMs: 300 },
      }),
    });
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    proxy?.closeAllConnections();
    proxy?.close();
  });

  it('retrieves the matching pages before round 1, gives every model the same numbered sources, and verifies the stand-ins’ citations', async () => {
    const all = await events(server, { question: QUESTION, rounds: 3, grounding: { source: 'team-wiki' } });
    const first = all.find((e) => e.type === 'grounding')!;
    const roundOne = all.find((e) => e.type === 'round.started')!;
    expect(first.seq).toBeLessThan(roundOne.seq);
    const grounding = (first as Extract<DebateEvent, { type: 'grounding' }>).grounding;
    expect(grounding.status).toBe('complete');
    expect(grounding.pages.map((p) => p.title).sort()).toEqual(Object.keys(PAGES).sort());
    const policy = grounding.pages.find((p) => p.title === 'Grounding Deploy Policy')!;
    // The wikitext reduced to plain text (no template, no bold markup), cut to the source's 400 bytes.
    expect(policy.text).toContain('Production deploys of the zebrafish service happen on Tuesdays only.');
    expect(policy.text).not.toMatch(/\{\{|'''/);
    expect(policy.revisionId).toBeGreaterThan(0);
    expect(policy.url).toBe(`${wiki.server}/index.php?oldid=${policy.revisionId}`);
    expect(policy.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(grounding.usage.requests).toBeGreaterThanOrEqual(2);
    expect(grounding.usage.bytes).toBeGreaterThan(0);

    // One event for the retrieval, one per round's citations, one for the verdict's; each page's text goes once,
    // with the first event that reports it (the later ones name it by its hash).
    const told = all.filter((e): e is Extract<DebateEvent, { type: 'grounding' }> => e.type === 'grounding');
    expect(told).toHaveLength(5);
    expect(told.flatMap((e) => e.grounding.pages.filter((p) => p.text !== undefined))).toEqual(grounding.pages);
    const ended = all.at(-1)!;
    expect(ended).toMatchObject({ type: 'session.ended', status: 'completed' });
    const session = (await (await server.fetch(`/sessions/${ended.sessionId}`)).json()) as Session;
    const g = session.grounding as Grounding;
    // Every answer of every round cites a real retrieved page, quoting its first words: all verified.
    const answers = session.rounds.flatMap((r) => r.answers);
    expect(answers.every((a) => /\[[12]\]/.test(a.text))).toBe(true);
    expect(g.citations.length).toBeGreaterThanOrEqual(answers.length);
    expect(g.unverifiedCitations).toBe(0);
    expect(g.verifiedCitations).toBe(g.citations.length);
    expect(g.citations.filter((c) => c.round === 0).length).toBeGreaterThan(0);
    // What the panel read is stored: the session's pages are the ones retrieved, text and all.
    expect(g.pages).toEqual(grounding.pages);

    // Replay: the stored events carry the same sources.
    const replay = await (await server.fetch(`/sessions/${session.id}/events`)).text();
    const replayed = replay
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as DebateEvent)
      .filter((e): e is Extract<DebateEvent, { type: 'grounding' }> => e.type === 'grounding');
    expect(replayed.at(-1)!.grounding).toEqual({ ...g, pages: g.pages.map(({ text: _, ...p }) => p) });
    expect(replayed[0]!.grounding.pages).toEqual(g.pages);
    expect(replayed).toEqual(told);
    // Resumed after the first grounding event (Last-Event-ID): the same events after it, the texts already had.
    const resumed = (
      await (await server.fetch(`/sessions/${session.id}/events`, { headers: { 'Last-Event-ID': String(told[0]!.seq) } })).text()
    )
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as DebateEvent);
    expect(resumed.filter((e) => e.type === 'grounding')).toEqual(told.slice(1));
    expect(resumed[0]!.seq).toBe(told[0]!.seq + 1);

    // Another user cannot read them.
    const other = await server.newUser();
    expect((await other.fetch(`/sessions/${session.id}`)).status).toBe(404);
  });

  it('flags a hallucinated citation from a live model (OpenAI-compatible wire format) as unverified, never as a source', async () => {
    // Slot 2 is a model on loopback: one true quotation, one invented, a page never retrieved, a number out of range.
    const model = await startHostileModel(
      [
        'Deploy on Tuesdays: "Production deploys of the zebrafish service happen on Tuesdays only." [[Grounding Deploy Policy]]',
        'Also "deploys are fine on Fridays" [[Grounding Deploy Policy]], as [[Secret Roadmap]] and [7] say.',
      ].join('\n'),
    );
    const live = await startServer({
      CONSILIUM_WIKIS: JSON.stringify({ 'team-wiki': { api: wiki.api, pages: 2 } }),
      CONSILIUM_SLOT2_PROVIDER: 'hallucinating',
      CONSILIUM_SLOT2_MODEL: 'hallucinating-1',
      CONSILIUM_SLOT2_BASE_URL: model.baseUrl,
      CONSILIUM_MAX_RETRIES: '0',
    });
    try {
      const res = await live.fetch('/consilium/deep', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: QUESTION, rounds: 3, grounding: { source: 'team-wiki' } }),
      });
      const session = (await res.json()) as Session;
      const g = session.grounding!;
      const slot2 = g.citations.filter((c) => c.slot === 2 && c.round === 1);
      expect(slot2).toEqual([
        {
          round: 1,
          slot: 2,
          ref: 'Grounding Deploy Policy',
          quote: 'Production deploys of the zebrafish service happen on Tuesdays only.',
          verified: true,
          source: g.pages.find((p) => p.title === 'Grounding Deploy Policy')!.n,
        },
        {
          round: 1,
          slot: 2,
          ref: 'Grounding Deploy Policy',
          quote: 'deploys are fine on Fridays',
          verified: false,
          reason: 'quote_not_found',
        },
        { round: 1, slot: 2, ref: 'Secret Roadmap', verified: false, reason: 'not_retrieved' },
        { round: 1, slot: 2, ref: '7', verified: false, reason: 'not_retrieved' },
      ]);
      expect(g.unverifiedCitations).toBe(g.citations.filter((c) => !c.verified).length);
      expect(g.unverifiedCitations).toBeGreaterThanOrEqual(6); // three each in rounds 1 and 2
      // The Markdown export lists the sources with links to their revisions, and the unverified citations apart.
      const md = await (await live.fetch(`/sessions/${session.id}/export/markdown`)).text();
      for (const p of g.pages) expect(md).toContain(`\\[${p.n}\\] [${p.title}](${p.url})`);
      expect(md).toMatch(/Unverified citations: \d+/);
      expect(md).toContain('Secret Roadmap');
    } finally {
      await live.close();
      await model.close();
    }
  });

  it('the SDK facade and the CLI (`--wiki`) ground a debate; the CLI prints the sources after the verdict', async () => {
    const consilium = new Consilium({ baseUrl: server.baseUrl, token: server.token });
    const session = await consilium.debates.run(QUESTION, { rounds: 2, grounding: { source: 'team-wiki' } });
    expect(session.grounding).toMatchObject({ source: 'team-wiki', status: 'complete', unverifiedCitations: 0 });

    const root = fileURLToPath(new URL('../../', import.meta.url));
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', 'sdk/src/cli/bin.ts', 'debate', QUESTION, '--rounds', '2', '--wiki', 'team-wiki', '--no-color'],
        { cwd: root, env: { PATH: process.env.PATH, HOME: root, CONSILIUM_URL: server.baseUrl, CONSILIUM_TOKEN: server.token } },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const verdictAt = out.indexOf('Sources · team-wiki · grounding complete');
    expect(verdictAt).toBeGreaterThan(out.indexOf('No verdict'));
    for (const title of Object.keys(PAGES)) expect(out.slice(verdictAt)).toMatch(new RegExp(`\\[\\d\\] ${title}  http://`));
  });

  it('lists the wiki sources in /providers, reachable, with their limits and never a secret', async () => {
    const body = (await (await server.fetch('/providers?check=true')).json()) as {
      wikis: { name: string; status: string; generator?: string; limits: object }[];
    };
    const team = body.wikis.find((w) => w.name === 'team-wiki')!;
    expect(team).toMatchObject({ status: 'reachable', limits: { pages: 2, bytesPerPage: 400, requestsPerRound: 3 } });
    expect(team.generator).toMatch(/^MediaWiki 1\.39/);
  });

  it('refuses a source that is not configured with a problem', async () => {
    const res = await server.fetch('/consilium/deep', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: QUESTION, grounding: { source: 'nope' } }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'unknown_wiki_source' });
  });

  it('a slow wiki degrades the debate visibly (timeout) and never fails it', async () => {
    proxyHolds = true;
    try {
      const res = await server.fetch('/consilium/deep', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: QUESTION, rounds: 2, grounding: { source: 'slow' } }),
      });
      const session = (await res.json()) as Session;
      expect(session.status).toBe('completed');
      expect(session.grounding).toMatchObject({ source: 'slow', status: 'absent', pages: [] });
      expect(session.grounding!.lookups[0]).toMatchObject({ ok: false, error: 'timeout' });
      // The wiki never answered: round 1 waited for the source's timeouts, not for the wiki.
    } finally {
      proxyHolds = false;
    }
  });

  it('a wiki that is down degrades the debate visibly and never fails it', async () => {
    proxyUp = false;
    try {
      const res = await server.fetch('/consilium/deep', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: QUESTION, rounds: 2, grounding: { source: 'flaky' } }),
      });
      expect(res.status).toBe(200);
      const session = (await res.json()) as Session;
      expect(session.status).toBe('completed');
      expect(session.grounding).toMatchObject({ source: 'flaky', status: 'absent', pages: [], verifiedCitations: 0 });
      expect(session.grounding!.note).toMatch(/could not be read before round 1 \(network\)/);
      expect(session.grounding!.lookups[0]).toMatchObject({ tool: 'retrieve', ok: false, error: 'network' });
    } finally {
      proxyUp = true;
    }
  });
});

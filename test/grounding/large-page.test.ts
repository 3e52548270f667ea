/**
 * A wiki's answer is read only up to a cap: the suite's real MediaWiki, behind a proxy that answers the read of one
 * page with 100 MB of text (as a hostile or broken wiki could: MediaWiki itself caps pages at 2 MB), streamed as the
 * wiki's own JSON. The source reads `maxResponseBytes` of it and lets go of the connection; the page keeps its
 * revision and its text up to the cut, and the cut is recorded in the grounding's usage. The process's memory while
 * it reads that page is held against its memory while it reads a page just under the cap, in the same test.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WIKI_LIMITS } from '../../server/src/config/wikis.js';
import { GroundingRun } from '../../server/src/grounding/run.js';
import { type Meter, WikiSource } from '../../server/src/grounding/wiki-source.js';
import { mediawiki, seedPages, startMediaWiki } from '../support/mediawiki.js';

const HUGE = 'Grounding Huge Page';
const NEAR = 'Grounding Near Cap Page';
const MB = 1024 * 1024;
const HUGE_BYTES = 100 * MB;
const CAP = DEFAULT_WIKI_LIMITS.maxResponseBytes;
/** What stands in for the page's text in the wiki's own answer, replaced on the way through. */
const MARK = 'GROUNDINGPAGETEXTMARK';
const WORD = 'zebraquokkaplenty';

/** A proxy to the wiki that answers the read of `sizes`' pages with that many bytes of text; counts what it sent. */
async function inflating(upstream: string, sizes: Record<string, number>) {
  const sent: Record<string, number> = {};
  /** Each inflated answer's end: the client gone, or all of it sent. */
  const ended: Promise<unknown>[] = [];
  const proxy: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const query = new URLSearchParams(`${req.url!.split('?')[1] ?? ''}&${body}`);
    const answer = await fetch(`${upstream}${req.url}`, {
      method: req.method!,
      headers: { 'content-type': String(req.headers['content-type'] ?? ''), 'user-agent': String(req.headers['user-agent']) },
      ...(req.method === 'POST' && { body }),
    });
    const text = await answer.text();
    const title = query.get('titles') ?? '';
    const size = query.get('prop')?.includes('revisions') ? sizes[title] : undefined;
    if (size === undefined || !text.includes(MARK)) {
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
      return;
    }
    // The wiki's own answer around the text, the text streamed as it is asked for (backpressure), as a wiki sends it.
    const [head, tail] = text.split(MARK) as [string, string];
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    const piece = Buffer.from('All work and no play makes a page long. '.repeat(1638));
    let closed = false;
    ended.push(once(res, 'close'));
    res.on('close', () => (closed = true));
    res.write(head);
    sent[title] = 0;
    while (sent[title] < size && !closed) {
      const chunk = piece.subarray(0, Math.min(piece.length, size - sent[title]));
      sent[title] += chunk.length;
      if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    }
    if (!closed) res.end(tail);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return {
    api: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api.php`,
    sent,
    /** Once every inflated answer so far has ended. */
    settled: () => Promise.all(ended),
    close: () => proxy.close(),
  };
}

/** The collector, once asked for: memory measured after a collection, so only what is still held counts. */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** How far the process's heap and buffers grew, at most, while `work` ran (sampled as it ran). */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; bytes: number }> {
  gc();
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = used();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, used())), 1);
  try {
    const result = await work();
    peak = Math.max(peak, used());
    return { result, bytes: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

describe.skipIf(!mediawiki.available)('a 100 MB wiki page', () => {
  let wiki: Awaited<ReturnType<typeof inflating>>;
  let source: WikiSource;
  beforeAll(async () => {
    const { api } = await startMediaWiki();
    // Only the huge page has the word the debate's question searches for.
    await seedPages({ [HUGE]: `${MARK} ${WORD}`, [NEAR]: MARK });
    // Just under the cap once the answer's own fields are counted: read whole.
    wiki = await inflating(api, { [HUGE]: HUGE_BYTES, [NEAR]: CAP - 4096 });
    source = new WikiSource({
      name: 'test-wiki',
      api: wiki.api,
      userAgent: 'ConsiliumTest/1.0',
      limits: DEFAULT_WIKI_LIMITS,
      timeoutMs: 60_000,
    });
  }, 300_000);
  afterAll(() => wiki?.close());

  it('is read up to the cap, kept up to the cut, recorded as cut, in about the memory of a page under the cap', async () => {
    const near: Meter = { requests: 0, bytes: 0, ms: 0 };
    const nearRead = await peakGrowth(() => source.metered(near, () => source.read([NEAR])));
    const huge: Meter = { requests: 0, bytes: 0, ms: 0 };
    const hugeRead = await peakGrowth(() => source.metered(huge, () => source.read([HUGE])));
    await wiki.settled();
    console.log(
      JSON.stringify({
        nearMB: +(nearRead.bytes / MB).toFixed(1),
        hugeMB: +(hugeRead.bytes / MB).toFixed(1),
        sentMB: +((wiki.sent[HUGE] ?? 0) / MB).toFixed(1),
        readMB: +(huge.bytes / MB).toFixed(2),
      }),
    );
    // The page under the cap was read whole, and nothing was cut.
    expect(near.cut).toBeUndefined();
    expect(wiki.sent[NEAR]).toBe(CAP - 4096);
    // The 100 MB page: no more than the cap read, the wiki let go of long before it sent it all.
    expect(huge.cut).toBe(1);
    expect(huge.bytes).toBeLessThanOrEqual(CAP);
    expect(wiki.sent[HUGE]).toBeLessThan(HUGE_BYTES / 5);
    // The page itself: its revision (before the text in the answer), its text as far as it was read, then cut to the models' share.
    const [page] = hugeRead.result;
    expect(page).toMatchObject({ title: HUGE, revisionId: expect.any(Number) });
    expect(page!.revisionId).toBeGreaterThan(0);
    expect(page!.text).toMatch(/^All work and no play makes a page long\./);
    expect(Buffer.byteLength(page!.text)).toBeLessThanOrEqual(DEFAULT_WIKI_LIMITS.bytesPerPage + 16);
    // Memory: a page a hundred times the cap costs what one under the cap does (whole, it would be ~300 MB: the bytes,
    // their text, the parsed string), with room for the measurement's noise.
    expect(hugeRead.bytes).toBeLessThan(3 * nearRead.bytes + 8 * MB);
  });

  it('the cut is in the debate’s grounding: its usage counts the responses cut', async () => {
    const run = new GroundingRun({ source });
    await run.prepare(WORD, new AbortController().signal, () => undefined);
    const grounding = run.snapshot();
    expect(grounding.pages.map((p) => p.title)).toContain(HUGE);
    expect(grounding.usage.cut).toBeGreaterThanOrEqual(1);
    expect(grounding.usage.bytes).toBeLessThan(HUGE_BYTES / 10);
  });
});

/**
 * Every untrusted string inert wherever it is shown, in real Chromium at 1280 and 390 px against the real server, a
 * loopback model and the suite's real MediaWiki behind a hostile proxy. The hostile strings carry a bidi override,
 * ESC, BEL, a C1 control and a DCS sequence, and a long unbroken word; they come in through a slot's final position
 * (its reason for changing), another slot's provider errors (its column, its answer card, the verdict's degradation
 * list), the question, a quotation the model cites, and a page title the wiki gives (whose siteinfo also names a
 * `javascript:` script URL). Each place shows them as visible marks, nothing is wider than the screen, no link is
 * `javascript:`, the stored page URL is http(s), and the Markdown export carries no raw control either.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../sdk/src/index.js';
import { mediawiki, seedPages, startMediaWiki } from '../support/mediawiki.js';
import { chromiumSkipped, launchChromium, newContext } from './browser.js';
import { signIn } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

/** A bidi override (reversing what follows), ESC with a CSI, BEL, a C1 control, and a DCS string. */
const HOSTILE = 'granted \u202eedoc_terces\u202c \u001b[2J\u0007 \u009b \u001bPq#1\u001b\\ end';
/** What Chromium must show for it (its start: a quotation's C1 control is not kept when citations are read). */
const SHOWN = 'granted ⟨U+202E⟩edoc_terces⟨U+202C⟩ ␛[2J␇';
const LONG = `unbroken${'x'.repeat(400)}`;
const PAGE = 'Grounding Inert Page';
const HOSTILE_TITLE = `Grounding \u202eInert\u202c Page \u0007`;
const QUOTE = `the page says ${HOSTILE}`;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Slot 4's model fails every call with `HOSTILE` as the provider's message; slot 5's answers carry it everywhere. */
async function startModel(): Promise<{ baseUrl: string; close(): void }> {
  const server: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const request = JSON.parse(body || '{}') as { model?: string };
    if (request.model === 'failing-1') {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `${HOSTILE} ${LONG}`, type: 'invalid_request_error' } }));
      return;
    }
    const json = /response_format|JSON shape/.test(body);
    const text = json
      ? JSON.stringify({
          position: `Held: "${QUOTE}" [1]`,
          changed: true,
          changeReason: `${HOSTILE} ${LONG}`,
          agreements: [],
          disagreements: [],
        })
      : `My answer: ${HOSTILE}. As "${QUOTE}" [1].`;
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'h', object: 'chat.completion.chunk', created: 0, model: 'spoof-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: text }));
    res.write(chunk({}, 'stop'));
    res.write(
      `data: ${JSON.stringify({ id: 'h', object: 'chat.completion.chunk', created: 0, model: 'spoof-1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

/**
 * The wiki behind a proxy that answers the read of `PAGE` with a hostile title (one the builders would never send:
 * MediaWiki refuses controls in titles) and names a `javascript:` script in the siteinfo, as a hostile or broken wiki
 * could.
 */
async function hostileWiki(upstream: string): Promise<{ api: string; close(): void }> {
  const inJson = (s: string) => JSON.stringify(s).slice(1, -1);
  const proxy: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const url = new URL(req.url!, upstream);
    const read = /[?&]prop=/.test(req.url!) || /(^|&)prop=/.test(body);
    const answer = await fetch(url, {
      method: req.method!,
      headers: { 'content-type': String(req.headers['content-type'] ?? ''), 'user-agent': String(req.headers['user-agent']) },
      ...(req.method === 'POST' && { body }),
    });
    let text = (await answer.text()).replace(/"script":"[^"]*"/, '"script":"javascript:alert(document.domain)//"');
    if (read) text = text.replaceAll(`"title":"${inJson(PAGE)}"`, `"title":"${inJson(HOSTILE_TITLE)}"`);
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return { api: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api.php`, close: () => proxy.close() };
}

const skip = chromiumSkipped || !mediawiki.available;

describe.skipIf(skip)('untrusted strings in the web UI and the export', () => {
  let server: UiServer;
  let model: Awaited<ReturnType<typeof startModel>>;
  let wiki: Awaited<ReturnType<typeof hostileWiki>>;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let sessionId: string;

  beforeAll(async () => {
    const real = await startMediaWiki();
    await seedPages({ [PAGE]: `The inert page says hello. Then ${PAGE} ends.` });
    [model, wiki] = await Promise.all([startModel(), hostileWiki(real.api)]);
    [server, { browser, close: closeBrowser }] = await Promise.all([
      startUiServer({
        CONSILIUM_OFFLINE_TOKEN_MS: '0',
        CONSILIUM_WIKIS: JSON.stringify({ 'hostile-wiki': { api: wiki.api, pages: 1, requestsPerRound: 0 } }),
        CONSILIUM_SLOT4_PROVIDER: 'failing',
        CONSILIUM_SLOT4_MODEL: 'failing-1',
        CONSILIUM_SLOT4_BASE_URL: model.baseUrl,
        CONSILIUM_SLOT5_PROVIDER: 'spoof',
        CONSILIUM_SLOT5_MODEL: 'spoof-1',
        CONSILIUM_SLOT5_BASE_URL: model.baseUrl,
        CONSILIUM_MAX_RETRIES: '0',
      }),
      launchChromium(),
    ]);
    const page = await (await newContext(browser)).newPage();
    page.setDefaultTimeout(60_000);
    await signIn(page, server.baseUrl, ADMIN);
    const started = await page.evaluate(async (question) => {
      const res = await fetch('/consilium/deep', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question, rounds: 2, detach: true, grounding: { source: 'hostile-wiki' } }),
      });
      return (await res.json()) as { sessionId: string };
    }, `Does the inert page say hello? ${HOSTILE}`);
    sessionId = started.sessionId;
    await page.goto(`${server.baseUrl}/#/sessions/${sessionId}`);
    await page.waitForSelector('.session[data-status=completed], .session[data-status=partial]');
    await page.context().close();
  }, 300_000);

  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
    model?.close();
    wiki?.close();
  });

  /** The session's page at `width`, signed in, opened finished (verdict, sources, then the tabs). */
  async function opened(width: number): Promise<Page> {
    const context = await newContext(browser, { phone: width < 600 });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.setViewportSize({ width, height: 900 });
    await signIn(page, server.baseUrl, ADMIN);
    await page.goto(`${server.baseUrl}/#/sessions/${sessionId}`);
    await page.waitForSelector('.session[data-status=completed], .session[data-status=partial]');
    return page;
  }

  /** Each place's text, checked: the hostile string shown as marks, nothing raw. */
  async function expectInert(page: Page, selector: string, shown = SHOWN): Promise<void> {
    const texts = await page.$$eval(selector, (all) => all.map((e) => e.textContent ?? ''));
    expect(texts.length, selector).toBeGreaterThan(0);
    const joined = texts.join('\n');
    expect(joined, selector).toContain(shown);
    expect(joined, selector).not.toMatch(RAW);
  }

  it.each([1280, 390])(
    'shows each place’s hostile text as visible marks, none wider than the screen, at %i px',
    async (width) => {
      const page = await opened(width);
      const session = (await page.evaluate(async (id) => (await fetch(`/sessions/${id}`)).json(), sessionId)) as Session;
      // The verdict's degradation list names slot 4's failure, with the provider's message.
      await expectInert(page, '.degraded li');
      // Sources: the page's title, and the quotation cited (unverified: not in the page).
      await expectInert(page, '[data-testid=sources] [data-testid=source-link]', 'Grounding ⟨U+202E⟩Inert⟨U+202C⟩ Page ␇');
      await expectInert(page, '[data-testid=sources] [data-testid=citation]', `the page says ${SHOWN}`);
      await expectInert(page, '.question', `Does the inert page say hello? ${SHOWN}`);
      // Compare: slot 5's final position line, and slot 4's column with its error.
      await page.click('#tab-compare');
      await expectInert(page, '[data-testid=columns-final] .column[data-slot="5"] .column-position');
      await expectInert(page, '[data-testid=columns-final] .column[data-slot="4"] .column-cause');
      // Rounds: the failed answers' cards, and the timeline's reasons.
      await page.click('#tab-rounds');
      await expectInert(page, 'article.answer[data-slot="4"] .error');
      await expectInert(page, '.reason');
      // Nothing is a javascript: link, and the page URL stored is the wiki's own http one.
      expect(await page.$$('a[href^="javascript:" i]')).toEqual([]);
      expect(session.grounding!.pages[0]!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/index\.php\?oldid=\d+$/);
      const wide = await page.evaluate((w) => {
        const out: string[] = [];
        for (const e of document.querySelectorAll('body *')) {
          const r = e.getBoundingClientRect();
          if ((r.right > w + 1 || e.scrollWidth > w + 1) && out.length < 12)
            out.push(`${e.tagName}.${e.className} r${Math.round(r.right)} s${e.scrollWidth}`);
        }
        return out;
      }, width);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth),
        `no sideways scroll: ${wide.join(', ')}`,
      ).toBeLessThanOrEqual(width);
      await page.context().close();
    },
  );

  it('the Markdown and JSON exports carry no raw control and no javascript: URL', async () => {
    const page = await opened(1280);
    const exported = await page.evaluate(async (id) => {
      const md = await (await fetch(`/sessions/${id}/export/markdown`)).text();
      const json = await (await fetch(`/sessions/${id}/export/json`)).text();
      return { md, json };
    }, sessionId);
    expect(exported.md).not.toMatch(RAW);
    expect(exported.md).toContain('⟨U+202E⟩');
    expect(exported.md).not.toMatch(/javascript:/i);
    expect(exported.json).not.toMatch(/javascript:/i);
    await page.context().close();
  });
});

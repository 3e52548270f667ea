/**
 * A grounded debate in real Chromium against the real server and the live MediaWiki: the Ask form offers the
 * server's wiki sources, the session shows its sources as links to the revisions read, each answer's citations
 * (an invented one marked unverified and never linked), the verdict's actions with the pages they rest on, and the
 * lookups. Slot 1 is a loopback model (chat completions) whose one JSON reply serves as answer, final position and
 * verdict (zod drops the keys a schema does not name), citing one real page and one never retrieved.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediawiki, seedPages, startMediaWiki } from '../support/mediawiki.js';
import { chromiumSkipped, launchChromium, newContext } from '../ui/browser.js';
import { startHostileModel } from '../ui/hostile-model.js';
import { sessionIdOf, signIn } from '../ui/pages.js';
import { ADMIN, startUiServer, type UiServer } from '../ui/server.js';

const TRUE_QUOTE = '"Production deploys of the zebrafish service happen on Tuesdays only." [[Grounding Deploy Policy]]';
const REPLY = JSON.stringify({
  position: `Deploy on Tuesdays: ${TRUE_QUOTE}; see also [[Secret Roadmap]].`,
  changed: false,
  changeReason: 'The policy page is clear.',
  agreements: [],
  disagreements: [],
  summary: `Deploy on Tuesdays, as ${TRUE_QUOTE} says.`,
  answer: 'Tuesdays.',
  actions: {
    P0: [{ title: 'Move deploys to Tuesday', rationale: TRUE_QUOTE, supportingSlots: [1], supportingRounds: [1] }],
    P1: [{ title: 'Plan the roadmap', rationale: 'As [[Secret Roadmap]] says.', supportingSlots: [1], supportingRounds: [1] }],
    P2: [],
  },
  dissent: [],
  confidence: 0.8,
});

const skip = chromiumSkipped || !mediawiki.available;

describe.skipIf(skip)('a grounded debate in the browser', () => {
  let server: UiServer;
  let model: Awaited<ReturnType<typeof startHostileModel>>;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let page: Page;

  beforeAll(async () => {
    const wiki = await startMediaWiki();
    await seedPages({
      'Grounding Deploy Policy': 'Production deploys of the zebrafish service happen on Tuesdays only.',
      'Grounding Incident Review': 'The zebrafish service outage of March was caused by a Friday deploy.',
    });
    model = await startHostileModel(REPLY);
    [server, { browser, close: closeBrowser }] = await Promise.all([
      startUiServer({
        CONSILIUM_OFFLINE_TOKEN_MS: '0',
        CONSILIUM_WIKIS: JSON.stringify({ 'team-wiki': { api: wiki.api, pages: 2 } }),
        CONSILIUM_SLOT1_PROVIDER: 'grounded',
        CONSILIUM_SLOT1_MODEL: 'grounded-1',
        CONSILIUM_SLOT1_BASE_URL: model.baseUrl,
      }),
      launchChromium(),
    ]);
    page = await (await newContext(browser)).newPage();
    page.setDefaultTimeout(30_000);
    await signIn(page, server.baseUrl, ADMIN);
  }, 180_000);

  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
    await model?.close();
  });

  it('shows the sources as links, the citations checked, and the actions with the pages they rest on', async () => {
    await page.goto(`${server.baseUrl}/#/`);
    await page.fill('#question', 'When should we deploy the zebrafish service?');
    await page.click('details.options summary');
    await page.selectOption('#rounds', '2');
    await page.selectOption('[data-testid=wiki]', 'team-wiki');
    await page.click('form.ask-form button[type=submit]');
    const id = await sessionIdOf(page);
    await page.waitForSelector('.session[data-status=completed], .session[data-status=partial]', { timeout: 60_000 });
    const session = await page.evaluate(async (sid) => (await fetch(`/sessions/${sid}`)).json(), id);
    const pages = session.grounding.pages as { n: number; title: string; url: string }[];

    const links = await page.$$eval('[data-testid=sources] ol [data-testid=source-link]', (as) =>
      as.map((a) => [a.textContent, (a as HTMLAnchorElement).href]),
    );
    expect(links).toEqual(pages.map((p) => [`[${p.n}] ${p.title}`, p.url]));

    const unverified = await page.$$eval('[data-testid=citation].unverified', (cs) => cs.map((c) => c.textContent));
    expect(unverified.length).toBeGreaterThan(0);
    expect(unverified.every((t) => t!.includes('Secret Roadmap') && t!.includes('unverified'))).toBe(true);
    // An unverified citation is never a link.
    expect(await page.$$('[data-testid=citation].unverified a')).toHaveLength(0);

    const policy = pages.find((p) => p.title === 'Grounding Deploy Policy')!;
    const actionSources = await page.$$eval('[data-testid=action-sources] a', (as) => as.map((a) => a.textContent));
    expect(actionSources).toEqual([`[${policy.n}] ${policy.title}`]);
  });

  it('grounds a parallel run from the same form: its sources shown as links beside the answers', async () => {
    await page.goto(`${server.baseUrl}/#/`);
    await page.fill('#question', 'When should we deploy the zebrafish service?');
    await page.check('input[name=mode][value=parallel]');
    await page.selectOption('[data-testid=wiki]', 'team-wiki');
    await page.click('form.ask-form button[type=submit]');
    const id = await sessionIdOf(page);
    await page.waitForSelector('.session[data-status=completed], .session[data-status=partial]', { timeout: 60_000 });
    const session = await page.evaluate(async (sid) => (await fetch(`/sessions/${sid}`)).json(), id);
    expect(session.mode).toBe('parallel');
    const pages = session.grounding.pages as { n: number; title: string; url: string }[];
    expect(pages.length).toBeGreaterThan(0);
    const links = await page.$$eval('[data-testid=sources] ol [data-testid=source-link]', (as) =>
      as.map((a) => [a.textContent, (a as HTMLAnchorElement).href]),
    );
    expect(links).toEqual(pages.map((p) => [`[${p.n}] ${p.title}`, p.url]));
  });
});

/**
 * The ask form's panel options in real Chromium: a deep debate on three chosen slots with another
 * slot writing the verdict and the peer ranking on; only those slots answer, the verdict names its
 * synthesizer, and the ranking card shows what the panel said (offline stand-ins: why no ballot).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../sdk/src/generated/types.gen.js';
import { chromiumSkipped, launchChromium, newContext } from './browser.js';
import { sessionIdOf, signIn, waitForStatus } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

let server: UiServer;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let page: Page;

beforeAll(async () => {
  [server, { browser, close: closeBrowser }] = await Promise.all([
    startUiServer({ CONSILIUM_OFFLINE_TOKEN_MS: '0', CONSILIUM_SLOT2_MODELS: 'gpt-4.1-mini' }),
    launchChromium(),
  ]);
  const context = await newContext(browser);
  page = await context.newPage();
  await signIn(page, server.baseUrl, ADMIN);
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await server?.close();
});

describe.skipIf(chromiumSkipped)('the panel chosen in the ask form', () => {
  it('three slots debate, slot 5 writes the verdict, slot 2 on another model, ranked: as asked, and shown', async () => {
    await page.goto(`${server.baseUrl}/#/`);
    await page.fill('#question', 'Which queue should the pipeline use?');
    await page.selectOption('#rounds', '2');
    await page.click('details.options summary');
    // The panel: 2, 3 and 4 (1 and 5 unticked).
    for (const slot of [1, 5])
      await page.uncheck(`fieldset:has(legend:has-text("Panel")) label:has([data-slot="${slot}"]) input`);
    await page.selectOption('select[aria-label="Model for slot 2"]', 'gpt-4.1-mini');
    await page.selectOption('#synthesizer', '5');
    await page.check('label:has-text("Peer ranking") input');
    await page.click('form.ask-form button[type=submit]');
    const id = await sessionIdOf(page);
    await waitForStatus(page, 'completed');
    await page.waitForSelector('section.ranking');

    const session = (await page.evaluate(
      async (sid) => (await fetch(`/sessions/${sid}`, { credentials: 'same-origin' })).json(),
      id,
    )) as Session;
    expect(session.panel).toEqual({
      slots: [2, 3, 4],
      synthesizer: 5,
      anonymous: true,
      ranking: true,
      models: [{ slot: 2, model: 'gpt-4.1-mini' }],
    });
    expect(session.rounds.map((r) => r.answers.map((a) => a.slot))).toEqual([
      [2, 3, 4],
      [2, 3, 4],
    ]);
    expect(session.verdict?.synthesizer).toMatchObject({ slot: 5, reason: 'chosen', participated: false });
    // Shown: one row per ranked slot, and why each offline stand-in gave no ballot.
    expect(await page.$$eval('section.ranking tbody tr', (rows) => rows.map((r) => r.getAttribute('data-slot')))).toEqual([
      '2',
      '3',
      '4',
    ]);
    expect(await page.textContent('section.ranking')).toContain('gave no ranking: an offline stand-in cannot judge answers');
  });
});

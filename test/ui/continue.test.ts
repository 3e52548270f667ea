/**
 * The Continue button, in real Chromium against the real server: an interrupted deep debate (stored as a stopped
 * server leaves it: round 1 whole, round 2 half answered) is continued from its page, which goes on in place to the
 * verdict, the answers already there kept as they were.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/src/store/open.js';
import { storeInterrupted } from '../support/fake-debate.js';
import { chromiumSkipped, launchChromium, newContext } from './browser.js';
import { shownAnswers, signIn, unfoldRounds, waitForStatus } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

let server: UiServer;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let page: Page;
const dir = mkdtempSync(join(tmpdir(), 'consilium-ui-continue-'));
const database = join(dir, 'consilium.db');

beforeAll(async () => {
  if (chromiumSkipped) return;
  [server, { browser, close: closeBrowser }] = await Promise.all([
    startUiServer({ CONSILIUM_DATABASE: database }),
    launchChromium(),
  ]);
  page = await (await newContext(browser)).newPage();
  page.setDefaultTimeout(20_000);
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(chromiumSkipped)('continuing an interrupted debate in the web UI', () => {
  it('shows Continue on an interrupted session only, and continues it in place to the verdict', async () => {
    await signIn(page, server.baseUrl, ADMIN);
    const me = (await page.evaluate(async () => (await fetch('/auth/me')).json())) as { id: string };
    // Written beside the running server, as the previous process left it.
    const db = await openDatabase(database);
    const d = await storeInterrupted(db.sessions, me.id);
    await db.close();

    await page.goto(`${server.baseUrl}/#/sessions/${d.session.id}`);
    await waitForStatus(page, 'interrupted');
    const continued = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/sessions/${d.session.id}/continue`));
    await page.click('button:has-text("Continue debate")');
    await continued;
    await waitForStatus(page, 'completed');
    expect(await page.$('button:has-text("Continue debate")')).toBeNull();
    await page.waitForSelector('[data-testid=consensus-matrix]');
    await unfoldRounds(page);
    const shown = await shownAnswers(page);
    // Three rounds of five, once each: the kept answers as they were, the missing ones answered.
    expect(Object.keys(shown).sort()).toEqual([1, 2, 3].flatMap((r) => [1, 2, 3, 4, 5].map((s) => `${r}:${s}`)).sort());
    for (const slot of [1, 2, 3]) expect(shown[`2:${slot}`]).toContain(`Slot ${slot} in round 2`);
    for (const slot of [4, 5]) expect(shown[`2:${slot}`]).not.toBe('');
  });
});

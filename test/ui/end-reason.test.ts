/**
 * Why a session did not complete, in real Chromium against the real server: a deep debate whose final round missed
 * its quorum (stored as the engine stores it, its end event naming no error, so what shows is the stored reason)
 * says why on its page, lists the holders its final answers credited to no one, and offers "Synthesize a verdict"
 * from the answers it kept, which runs and ends with one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/src/store/open.js';
import { FakeDebate } from '../support/fake-debate.js';
import { chromiumSkipped, launchChromium, newContext } from './browser.js';
import { signIn, waitForStatus } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

let server: UiServer;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let page: Page;
const dir = mkdtempSync(join(tmpdir(), 'consilium-ui-end-reason-'));
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

const REASON = 'quorum_not_met: round 2 had 0 answers, the quorum is 3';

describe.skipIf(chromiumSkipped)('a session that did not complete, in the web UI', () => {
  it('says why, lists the holders credited to no one, and synthesizes a verdict from the answers it kept', async () => {
    await signIn(page, server.baseUrl, ADMIN);
    const me = (await page.evaluate(async () => (await fetch('/auth/me')).json())) as { id: string };
    const db = await openDatabase(database);
    const d = new FakeDebate({ owner: me.id, roundsRequested: 2 });
    await db.sessions.write(d.start().step());
    d.startRound(1);
    for (const slot of [1, 2, 3, 4, 5]) d.answer(1, slot);
    d.endRound(1);
    d.startRound(2);
    for (const slot of [1, 2, 3, 4, 5])
      d.fail(2, slot, {
        code: 'invalid_output',
        message: 'No object generated: response did not match schema.',
        retryable: true,
        attempts: 2,
      });
    d.endRound(2);
    d.session.endReason = REASON;
    d.session.unmatchedLabels = [{ round: 2, reader: 3, statement: 'Keep ids global', text: 'Response Z' }];
    for (const round of d.session.rounds) for (const a of round.answers) a.latencyMs = Math.round(a.latencyMs);
    d.end('partial');
    await db.sessions.write(d.step({ rounds: [1, 2] }));
    await db.close();

    // The API has it, not only the event stream.
    const stored = (await page.evaluate(async (id) => (await fetch(`/sessions/${id}`)).json(), d.session.id)) as {
      endReason?: string;
    };
    expect(stored.endReason).toBe(REASON);

    await page.goto(`${server.baseUrl}/#/sessions/${d.session.id}`);
    await waitForStatus(page, 'partial');
    expect(await page.textContent('[data-testid=end-reason]')).toBe(`Did not complete: ${REASON}`);
    expect(await page.textContent('[data-testid=unmatched-labels]')).toContain(
      'Slot 3 credited “Keep ids global” to “Response Z”',
    );

    const posted = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/synthesize'));
    await page.click('button:has-text("Synthesize a verdict")');
    expect((await posted).postDataJSON()).toEqual({ sessionId: d.session.id });
    await page.waitForURL((url) => /#\/sessions\/ses_/.test(url.hash) && !url.hash.includes(d.session.id));
    await waitForStatus(page, 'completed');
    expect(await page.$('[data-testid=end-reason]')).toBeNull();
    const synthesized = decodeURIComponent(/#\/sessions\/([^/?]+)/.exec(page.url())![1]!);
    const session = (await page.evaluate(async (id) => (await fetch(`/sessions/${id}`)).json(), synthesized)) as {
      mode: string;
      sourceSessionId?: string;
      verdict?: { format: string };
    };
    expect(session).toMatchObject({ mode: 'synthesis', sourceSessionId: d.session.id, verdict: { format: 'structured' } });
  });
});

/**
 * History management and what a session's page can do, in real Chromium against the real server: sharing with a second
 * user (a third still gets "not found"), delete with Undo, full-text search finding a word only an answer holds (opened
 * with Ctrl+K), run again and edit-and-resend; axe on the new views in both themes, with screenshots (desktop 1280,
 * phone 390) in `test/ui/artifacts/`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/src/store/open.js';
import { FakeDebate } from '../support/fake-debate.js';
import { ROOT } from '../support/process.js';
import { chromiumSkipped, launchChromium, newContext } from './browser.js';
import { ask, sessionIdOf, signIn, waitForStatus } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

const ARTIFACTS = join(ROOT, 'test/ui/artifacts');
const AXE = readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'consilium-ui-history-'));
const database = join(dir, 'consilium.db');
const users = {
  second: { username: 'second-reader', password: 'second-password-1' },
  third: { username: 'third-reader', password: 'third-password-1' },
};

let server: UiServer;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let owner: BrowserContext;
let page: Page;
let adminId: string;
/** A stored session whose word `WORD` is in one answer only. */
const WORD = 'zanzibarqueue';
let searchable: string;

/** Serious and critical axe violations in `within` (a selector; the whole page by default). */
async function seriousViolations(on: Page, within?: string) {
  if (!(await on.evaluate(() => 'axe' in window))) await on.evaluate(AXE);
  const violations = (await on.evaluate(async (selector: string | undefined) => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            c: Document | object,
            o: object,
          ): Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    return (await axe.run(selector ? { include: [[selector]] } : document, { resultTypes: ['violations'] })).violations;
  }, within)) as { id: string; impact: string | null; nodes: { target: string[] }[] }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, nodes: v.nodes.slice(0, 3).map((n) => n.target) }));
}

beforeAll(async () => {
  if (chromiumSkipped) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  [server, { browser, close: closeBrowser }] = await Promise.all([
    startUiServer({ CONSILIUM_DATABASE: database, CONSILIUM_OFFLINE_TOKEN_MS: '0' }),
    launchChromium(),
  ]);
  owner = await newContext(browser);
  page = await owner.newPage();
  page.setDefaultTimeout(20_000);
  await signIn(page, server.baseUrl, ADMIN);
  adminId = ((await page.evaluate(async () => (await fetch('/auth/me')).json())) as { id: string }).id;
  for (const user of Object.values(users)) {
    const status = await page.evaluate(
      async (body) => (await fetch('/users', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status,
      JSON.stringify(user),
    );
    expect(status).toBe(201);
  }
  // Written beside the running server (SQLite takes a second writer): a debate whose answer alone holds WORD.
  const db = await openDatabase(database);
  const d = new FakeDebate({
    owner: adminId,
    question: 'Which message broker for the ingestion pipeline?',
    createdAt: new Date().toISOString(),
  });
  await db.sessions.write(d.start().step());
  d.startRound(1);
  for (const slot of [1, 2, 3, 4]) d.answer(1, slot);
  d.answer(1, 5, `Take the ${WORD} approach: one partition per tenant.`);
  d.endRound(1);
  // Whole milliseconds, as the contract has them (the fake's are fractional, for the stores' round trips).
  for (const a of d.round(1).answers) a.latencyMs = Math.round(a.latencyMs);
  await db.sessions.write(d.step({ rounds: [1] }));
  d.consensus();
  d.verdict();
  d.end();
  await db.sessions.write(d.step({ consensus: true, verdict: true }));
  await db.close();
  searchable = d.session.id;
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function signedIn(who: { username: string; password: string }): Promise<Page> {
  const context = await newContext(browser);
  const p = await context.newPage();
  p.setDefaultTimeout(20_000);
  await signIn(p, server.baseUrl, who);
  return p;
}

describe.skipIf(chromiumSkipped)('history and session actions in the web UI', () => {
  it('shares a session read-only with a second user; a third user gets "not found"', async () => {
    await ask(page, server.baseUrl, 'Shared question: which cache?', { mode: 'single' });
    const id = await sessionIdOf(page);
    await waitForStatus(page, 'completed');
    await page.click('button:has-text("Share…")');
    await page.fill('#share-user', users.second.username);
    await page.click('.share-form button[type=submit]');
    await page.waitForSelector(`.shares li:has-text("${users.second.username}")`);
    expect(await seriousViolations(page, '.share-dialog')).toStrictEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'share-dialog-light-desktop.png') });
    await page.click('.share-dialog form[method=dialog] button');

    const second = await signedIn(users.second);
    await second.goto(`${server.baseUrl}/#/sessions/${id}`);
    await waitForStatus(second, 'completed');
    await second.waitForSelector('[data-testid=read-only]');
    expect(await second.$('button:has-text("Delete")')).toBeNull();
    expect(await second.$('button:has-text("Share…")')).toBeNull();
    await second.goto(`${server.baseUrl}/#/sessions`);
    await second.selectOption('.filters select >> nth=0', 'shared');
    await second.waitForSelector(`.history li:has-text("Shared question: which cache?")`);

    const third = await signedIn(users.third);
    await third.goto(`${server.baseUrl}/#/sessions/${id}`);
    await third.waitForSelector('h1:has-text("Session not found")');

    // Stopping the share: the second user gets "not found" too.
    await page.click('button:has-text("Share…")');
    await page.click(`button[aria-label="Stop sharing with ${users.second.username}"]`);
    await page.waitForSelector('.share-dialog p:has-text("Nobody yet.")');
    await page.click('.share-dialog form[method=dialog] button');
    await second.goto(`${server.baseUrl}/#/`);
    await second.goto(`${server.baseUrl}/#/sessions/${id}`);
    await second.waitForSelector('h1:has-text("Session not found")');
  });

  it('offers someone a session is shared with no action the server would refuse them, and the server does refuse them', async () => {
    await ask(page, server.baseUrl, 'Shared parallel: which queue?', { mode: 'parallel' });
    const parallel = await sessionIdOf(page);
    await waitForStatus(page, 'completed');
    const api = (on: Page, path: string, body?: unknown) =>
      on.evaluate(
        async ([p, b]) => {
          const res = await fetch(p as string, {
            method: b === undefined ? 'GET' : 'POST',
            headers: { 'content-type': 'application/json' },
            ...(b !== undefined && { body: JSON.stringify(b) }),
          });
          return { status: res.status, body: await res.json().catch(() => null) };
        },
        [path, body] as const,
      ) as Promise<{ status: number; body: { id?: string } | null }>;
    // A follow-up not detached answers with its session, once it has run.
    const followUp = (await api(page, `/sessions/${parallel}/follow-ups`, { question: 'And a follow-up?' })).body!.id!;
    for (const id of [parallel, followUp]) {
      const shared = await api(page, `/sessions/${id}/shares`, { username: users.second.username });
      expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    }

    const second = await signedIn(users.second);
    // A shared parallel session: running it again makes a session of the reader's own, so that is offered; a
    // verdict of it would read someone else's session, which the server refuses.
    await second.goto(`${server.baseUrl}/#/sessions/${parallel}`);
    await waitForStatus(second, 'completed');
    await second.waitForSelector('[data-testid=read-only]');
    await second.waitForSelector('button:has-text("Run again")');
    expect(await second.$('button:has-text("Synthesize a verdict")')).toBeNull();
    expect((await api(second, '/synthesize', { sessionId: parallel })).status).toBe(404);
    // A shared follow-up: running it again asks in its owner's thread, which is theirs alone.
    await second.goto(`${server.baseUrl}/#/sessions/${followUp}`);
    await waitForStatus(second, 'completed');
    await second.waitForSelector('[data-testid=read-only]');
    expect(await second.$('button:has-text("Run again")')).toBeNull();
    expect(await second.$('button:has-text("Edit and resend")')).toBeNull();
    expect((await api(second, `/sessions/${parallel}/follow-ups`, { question: 'Mine too?' })).status).toBe(404);
    // The owner is offered both.
    await page.goto(`${server.baseUrl}/#/sessions/${followUp}`);
    await waitForStatus(page, 'completed');
    await page.waitForSelector('button:has-text("Run again")');
    await page.goto(`${server.baseUrl}/#/sessions/${parallel}`);
    await page.waitForSelector('button:has-text("Synthesize a verdict")');
    await second.context().close();
  });

  it('finds a word only an answer holds, from Ctrl+K anywhere, with the verdict previewed', async () => {
    await page.goto(`${server.baseUrl}/#/providers`);
    await page.waitForSelector('table.providers');
    await page.keyboard.press('Control+k');
    await page.waitForSelector('#history-q:focus');
    await page.keyboard.type(WORD.slice(0, 8));
    const row = await page.waitForSelector(`.history li:has(a[href="#/sessions/${searchable}"])`);
    expect(await row.textContent()).toContain('Which message broker');
    expect(await (await row.$('[data-testid=verdict-preview]'))!.textContent()).toContain('Do not shard yet.');
    await expect.poll(() => page.$$eval('.history li', (items) => items.length)).toBe(1);
  });

  it('deletes with Undo: Undo keeps it; otherwise it is gone once the toast runs out', async () => {
    await ask(page, server.baseUrl, 'Question to delete', { mode: 'single' });
    const id = await sessionIdOf(page);
    await waitForStatus(page, 'completed');
    await page.goto(`${server.baseUrl}/#/sessions`);
    const row = `.history li:has(a[href="#/sessions/${id}"])`;
    await page.click(`${row} button:has-text("Delete")`);
    await page.waitForSelector('[data-testid=toast-delete]');
    await page.waitForSelector(row, { state: 'detached' });
    await page.click('[data-testid=toast-delete] button:has-text("Undo")');
    await page.waitForSelector(row);
    const status = (path: string) => page.evaluate(async (p) => (await fetch(p)).status, path);
    expect(await status(`/sessions/${id}`)).toBe(200);

    await page.click(`${row} button:has-text("Delete")`);
    await page.waitForSelector('[data-testid=toast-delete]', { state: 'detached', timeout: 15_000 });
    await expect.poll(() => status(`/sessions/${id}`)).toBe(404);
    await page.waitForSelector(row, { state: 'detached' });
  });

  it('runs a session again with its settings, and sends it again with an edited question', async () => {
    await ask(page, server.baseUrl, 'Run me again', { mode: 'parallel' });
    const first = await sessionIdOf(page);
    await waitForStatus(page, 'completed');
    await page.click('button:has-text("Run again")');
    await page.waitForURL((url) => url.hash.startsWith('#/sessions/ses_') && !url.hash.includes(first));
    const again = await sessionIdOf(page);
    await waitForStatus(page, 'completed');
    const read = (id: string) =>
      page.evaluate(async (p) => (await fetch(p)).json(), `/sessions/${id}`) as Promise<{ question: string; mode: string }>;
    expect(await read(again)).toMatchObject({ question: 'Run me again', mode: 'parallel' });

    await page.click('button:has-text("Edit and resend")');
    await page.fill('#resend-q', 'Run me again, edited');
    await page.click('form.resend button[type=submit]');
    await page.waitForURL((url) => !url.hash.includes(again) && url.hash.startsWith('#/sessions/ses_'));
    const edited = await sessionIdOf(page);
    await waitForStatus(page, 'completed');
    expect(await read(edited)).toMatchObject({ question: 'Run me again, edited', mode: 'parallel' });

    // A parallel session can be synthesized from its page.
    await page.click('button:has-text("Synthesize a verdict")');
    await page.waitForURL((url) => !url.hash.includes(edited) && url.hash.startsWith('#/sessions/ses_'));
    expect((await read(await sessionIdOf(page))).mode).toBe('synthesis');
  });

  it.each([
    { theme: 'light', dark: false },
    { theme: 'dark', dark: true },
  ])(
    'history with filters and a session with its actions: no serious axe violation ($theme); screenshots',
    async ({ theme, dark }) => {
      for (const device of ['desktop', 'phone'] as const) {
        const context =
          device === 'phone'
            ? await browser.newContext({
                viewport: { width: 390, height: 844 },
                colorScheme: dark ? 'dark' : 'light',
                isMobile: true,
                hasTouch: true,
                deviceScaleFactor: 2,
              })
            : await newContext(browser, { dark });
        const p = await context.newPage();
        p.setDefaultTimeout(20_000);
        await signIn(p, server.baseUrl, ADMIN);
        await p.goto(`${server.baseUrl}/#/sessions`);
        await p.waitForSelector('.history li [data-testid=verdict-preview]');
        expect(await seriousViolations(p), `history ${theme} ${device}`).toStrictEqual([]);
        const width = await p.evaluate(() => document.documentElement.scrollWidth);
        expect(width, 'no sideways scroll').toBeLessThanOrEqual(device === 'phone' ? 390 : 1280);
        await p.screenshot({ path: join(ARTIFACTS, `history-filters-${theme}-${device}.png`), fullPage: true });
        await p.goto(`${server.baseUrl}/#/sessions/${searchable}`);
        await p.waitForSelector('.session-manage button:has-text("Share…")');
        // The actions only: the panel above them is the session view's own (test/ui/views.test.ts).
        expect(await seriousViolations(p, '.session-manage'), `session actions ${theme} ${device}`).toStrictEqual([]);
        await p.screenshot({ path: join(ARTIFACTS, `session-actions-${theme}-${device}.png`), fullPage: true });
        await context.close();
      }
    },
  );
});

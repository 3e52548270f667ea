/**
 * Reading a debate, in real Chromium against the real server: nothing moves under the reader while
 * a 3-round debate streams (the Layout Instability API's shift and a probe's position), Markdown renders mid-stream,
 * a finished session opens on its verdict, copy goes through the clipboard, a user's cancel reads as cancelled, an
 * unpriced model's cost reads "unknown", a 5 MB one-paragraph answer never blocks the page longer than a 20 KB one
 * (Long Tasks API, both measured in the run), bidi overrides and control characters show as visible marks, and a long URL wraps at 390 px. Slot 5 is a
 * loopback model (see `reader` below); the others are the offline stand-in. axe on the live view, both themes;
 * screenshots into `test/ui/artifacts/`.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/process.js';
import { chromiumSkipped, launchChromium, newContext, watchCsp } from './browser.js';
import { ask, sessionIdOf, signIn, waitForStatus } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

const ARTIFACTS = join(ROOT, 'test/ui/artifacts');
const AXE = readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

const MARKDOWN = [
  '## Position',
  'The **queue** should be *partitioned*, with `replay` tooling first.',
  '- one item\n- two items\n- three items',
  '| a | b |\n| --- | --- |\n| 1 | 2 |',
  ...Array.from({ length: 6 }, (_, i) => `Paragraph ${i}: retention **matters** because replay costs grow with it.`),
].join('\n\n');
/** Bidi override, escape sequence, C0 and C1 controls, and a long unbroken URL. */
const SPOOF = 'access \u202eedoc_terces\u202c granted \u001b[2J bell\u0007 csi\u009b';
const LONG_URL = `https://example.org/${'a'.repeat(600)}`;
const HUGE = 5 * 1024 * 1024;
/** What the page shows of any answer (`SHOWN` in LiveMarkdown.tsx). */
const LARGE = 20_000;

/** The text slot 5 writes for a request: by the question's keyword (HUGE, LARGE, SPOOF), else Markdown at a reading pace. */
function reply(body: string): { text: string; piece: number; delayMs: number } {
  if (/writing the verdict/.test(body))
    return {
      text: JSON.stringify({
        summary: 'Use **Kafka**, with replay tooling first.',
        answer: MARKDOWN,
        actions: {
          P0: [{ title: 'Set up topics', rationale: 'Ordering.', supportingSlots: [5], supportingRounds: [1] }],
          P1: [],
          P2: [],
        },
        dissent: [],
        confidence: 0.7,
      }),
      piece: 40,
      delayMs: 5,
    };
  const wantsJson = /response_format|JSON shape/.test(body);
  let text = MARKDOWN;
  if (/HUGE/.test(body)) text = 'word '.repeat(HUGE / 5);
  else if (/LARGE/.test(body)) text = 'word '.repeat(LARGE / 5);
  else if (/SPOOF/.test(body)) text = `${SPOOF}\n\nSee ${LONG_URL} for more.`;
  if (wantsJson)
    text = JSON.stringify({ position: text, changed: false, changeReason: 'Held.', agreements: [], disagreements: [] });
  return /HUGE|LARGE/.test(body)
    ? { text, piece: 64 * 1024, delayMs: 0 }
    : { text, piece: 12, delayMs: /slowly/.test(body) ? 40 : 8 };
}

async function startReader(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const { text, piece, delayMs } = reply(body);
      const chunk = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: 'r', object: 'chat.completion.chunk', created: 0, model: 'reader-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pieces: string[] = [];
      for (let i = 0; i < text.length; i += piece) pieces.push(text.slice(i, i + piece));
      let i = 0;
      const next = () => {
        if (res.destroyed) return;
        if (i < pieces.length) {
          res.write(chunk({ content: pieces[i++] }));
          return void setTimeout(next, delayMs);
        }
        res.write(chunk({}, 'stop'));
        res.write(
          `data: ${JSON.stringify({ id: 'r', object: 'chat.completion.chunk', created: 0, model: 'reader-1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } })}\n\n`,
        );
        res.end('data: [DONE]\n\n');
      };
      next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let server: UiServer;
let reader: Awaited<ReturnType<typeof startReader>>;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let context: BrowserContext;
let page: Page;
let csp: string[];
let deepId: string;

/**
 * Records layout shifts and long tasks from the start of every document, and when a session view first shows: what
 * moves after that moves under a reader (the app starting and the Ask form giving way to the session come before).
 */
async function observe(ctx: BrowserContext) {
  await ctx.addInitScript(() => {
    const w = window as unknown as {
      __shifts: { start: number; value: number }[];
      __longTasks: { start: number; duration: number }[];
      __sessionShown?: number;
      __columnsEndAtShow?: number | null;
    };
    w.__shifts = [];
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
        if (!e.hadRecentInput) w.__shifts.push({ start: e.startTime, value: e.value });
    }).observe({ type: 'layout-shift', buffered: true });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
    new MutationObserver((_, observer) => {
      if (!document.querySelector('.session')) return;
      w.__sessionShown = performance.now();
      // A live run's columns hold their place from the first frame: where they end then, nothing below moves later.
      w.__columnsEndAtShow = document.querySelector('.session .columns-live')?.getBoundingClientRect().bottom ?? null;
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true });
  });
}
/** The layout shift since the session view first showed (a sum, as the Layout Instability API's CLS). */
const shiftsUnderReader = (p: Page) =>
  p.evaluate(() => {
    const w = window as unknown as { __shifts: { start: number; value: number }[]; __sessionShown: number };
    return w.__shifts.filter((e) => e.start >= w.__sessionShown).reduce((sum, e) => sum + e.value, 0);
  });
const longestTaskSince = (p: Page, since: number) =>
  p.evaluate(
    (t) =>
      Math.max(
        0,
        ...(window as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks
          .filter((e) => e.start >= t)
          .map((e) => e.duration),
      ),
    since,
  );
const top = (p: Page, selector: string) => p.$eval(selector, (e) => e.getBoundingClientRect().top);

async function seriousViolations(p: Page) {
  if (!(await p.evaluate(() => 'axe' in window))) await p.evaluate(AXE);
  const violations = (await p.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: object[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  })) as { id: string; impact: string; nodes: { target: string[] }[] }[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes[0]?.target}`);
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  reader = await startReader();
  [server, { browser, close: closeBrowser }] = await Promise.all([
    startUiServer({
      CONSILIUM_OFFLINE_TOKEN_MS: '4',
      // Slot 1 writes the verdict: a real (loopback) model, so there is one with actions to copy.
      CONSILIUM_SLOT1_PROVIDER: 'writer',
      CONSILIUM_SLOT1_MODEL: 'reader-1',
      CONSILIUM_SLOT1_BASE_URL: reader.baseUrl,
      CONSILIUM_SLOT5_PROVIDER: 'reader',
      CONSILIUM_SLOT5_MODEL: 'reader-1',
      CONSILIUM_SLOT5_BASE_URL: reader.baseUrl,
    }),
    launchChromium(),
  ]);
  context = await newContext(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
  await observe(context);
  csp = await watchCsp(context);
  page = await context.newPage();
  page.setDefaultTimeout(60_000);
  await signIn(page, server.baseUrl, ADMIN);
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await server?.close();
  await reader?.close();
});

describe.skipIf(chromiumSkipped)('reading a debate while it streams', () => {
  it('moves nothing under the reader over a whole 3-round debate, and renders Markdown mid-stream', async () => {
    await ask(page, server.baseUrl, 'Which queue for ingestion? Answer slowly.', { mode: 'deep', rounds: 3 });
    deepId = await sessionIdOf(page);
    const column = '[data-testid=columns-live] .column[data-slot="5"]';
    // Markdown while the answer is still streaming: a heading and bold text, no literal `**`.
    await page.waitForSelector(`${column} .col-answer[data-round="1"] .status-streaming`);
    await page.waitForSelector(`${column} .col-answer[data-round="1"] .answer-text strong`);
    const midStream = await page.$eval(`${column} .col-answer[data-round="1"]`, (e) => ({
      streaming: !!e.querySelector('.status-streaming'),
      h2: e.querySelector('h2')?.textContent,
      text: e.querySelector('.answer-text')!.textContent!,
    }));
    expect(midStream.streaming).toBe(true);
    expect(midStream.h2).toBe('Position');
    expect(midStream.text).not.toContain('**');
    await page.screenshot({ path: join(ARTIFACTS, 'reading-live-desktop.png') });
    expect(await seriousViolations(page)).toEqual([]);
    // The reader scrolls column 1 back to its start and reads round 1 there: it must stay where it is.
    const probe = '[data-testid=columns-live] .column[data-slot="1"] .col-answer[data-round="1"]';
    const body1 = '[data-testid=columns-live] .column[data-slot="1"] .column-body';
    // Back from a column that holds more than it shows (one that fits is at its end, and follows it).
    await page.waitForFunction((s) => {
      const e = document.querySelector(s);
      return e !== null && e.scrollHeight > e.clientHeight + 50;
    }, body1);
    await page.$eval(body1, (e) => {
      e.scrollTop = 0;
    });
    await page.waitForFunction((s) => document.querySelector(s)?.scrollTop === 0, body1);
    const head = '[data-testid=columns-live] .column[data-slot="5"] .column-head';
    const before = { probe: await top(page, probe), head: await top(page, head) };
    await page.waitForSelector(`${column} .col-answer[data-round="2"]`);
    await page.waitForSelector(`${column} .col-answer[data-round="3"]`);
    expect(Math.abs((await top(page, probe)) - before.probe)).toBeLessThanOrEqual(1);
    await page.waitForSelector('section.verdict');
    expect(Math.abs((await top(page, probe)) - before.probe)).toBeLessThanOrEqual(1);
    await waitForStatus(page, 'completed');
    expect(Math.abs((await top(page, probe)) - before.probe)).toBeLessThanOrEqual(1);
    expect(Math.abs((await top(page, head)) - before.head)).toBeLessThanOrEqual(1);
    const columnsEnd = await page.evaluate(() => ({
      atShow: (window as unknown as { __columnsEndAtShow: number | null }).__columnsEndAtShow,
      now: document.querySelector('[data-testid=columns-live]')!.getBoundingClientRect().bottom,
    }));
    console.log(
      `[reading] live columns end at ${columnsEnd.atShow} px when the session shows, ${columnsEnd.now} px with the panel`,
    );
    expect(columnsEnd.atShow).not.toBeNull();
    expect(Math.abs(columnsEnd.now - columnsEnd.atShow!)).toBeLessThanOrEqual(16);
    const cls = await shiftsUnderReader(page);
    console.log(`[reading] cumulative layout shift over a 3-round debate: ${cls.toFixed(4)}`);
    expect(cls).toBeLessThanOrEqual(0.1);
  }, 120_000);

  it('opens a finished session on its verdict (summary, answer, actions), the rounds one step away', async () => {
    // Opened afresh (a reload: the page no longer holds the run it watched).
    await page.reload();
    await page.waitForSelector('.session[data-status=completed] section.verdict .actions');
    const order = await page.$$eval('.session > *', (els) => els.map((e) => e.className.split(' ').slice(0, 2).join(' ')));
    expect(order[1]).toContain('verdict');
    expect(await top(page, 'section.verdict')).toBeLessThan(400);
    expect(await page.$$('article.answer')).toHaveLength(0);
    expect(await page.getAttribute('#tab-compare', 'aria-selected')).toBe('true');
    await page.click('#tab-rounds');
    await page.waitForSelector('article.answer');
    await page.screenshot({ path: join(ARTIFACTS, 'reading-opened-desktop.png') });
  });

  it('copies the verdict, an action, an answer and the session as Markdown through the clipboard', async () => {
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    await page.click('button[data-copy=verdict]');
    await expect.poll(clipboard).toContain('Use **Kafka**, with replay tooling first.');
    expect(await clipboard()).toContain('### P0');
    await page.click('button[data-copy="action P0.1"]');
    await expect.poll(clipboard).toBe('**Set up topics** — Ordering.');
    await page.click('article.answer[data-slot="5"] button.copy');
    await expect.poll(clipboard).toContain('| a | b |');
    await page.click('button[data-copy="session as Markdown"]');
    await expect.poll(clipboard).toContain('## Verdict');
    // The export keeps the models' formatting as formatting, not as escaped characters.
    expect(await clipboard()).toContain('The **queue** should be *partitioned*, with `replay` tooling first.');
    expect(await clipboard()).toContain('| a | b |\n| --- | --- |\n| 1 | 2 |');
    // "Copy session as Markdown" is a button the size of the exports beside it.
    const box = async (selector: string) => (await (await page.$(selector))!.boundingBox())!;
    const copy = await box('button[data-copy="session as Markdown"]');
    const exported = await box('.exports button');
    expect(Math.abs(copy.height - exported.height)).toBeLessThanOrEqual(1);
    expect(Math.abs(copy.y - exported.y)).toBeLessThanOrEqual(1);
  });

  it('reads an unpriced model\'s cost as "unknown", never "≥ $0.0000"', async () => {
    await page.click('#tab-usage');
    const usage = (await page.textContent('[data-testid=panel-usage]'))!;
    expect(usage).toContain('unknown');
    expect(usage).not.toMatch(/≥ \$0\.0000/);
  });

  it('a cancel by Esc reads as cancelled: no "failed", no "quorum not met"', async () => {
    await ask(page, server.baseUrl, 'Cancel me. Answer slowly.', { mode: 'deep', rounds: 3 });
    await sessionIdOf(page);
    await page.waitForSelector('[data-testid=columns-live] .column[data-slot="5"] .status-streaming');
    await page.focus('h1.question');
    await page.keyboard.press('Escape');
    await waitForStatus(page, 'cancelled');
    await page.waitForSelector('.status-cancelled');
    const text = (await page.textContent('.session'))!;
    expect(text).not.toContain('quorum not met');
    expect(await page.$$('.status-failed')).toHaveLength(0);
    await page.click('#tab-rounds');
    expect((await page.textContent('.session'))!).not.toContain('quorum not met');
    expect(await page.$$('.status-failed')).toHaveLength(0);
  });

  it('j and k move focus between answers', async () => {
    await page.goto(`${server.baseUrl}/#/sessions/${deepId}`);
    await page.reload();
    await page.waitForSelector('#tab-compare[aria-selected=true]');
    await page.focus('h1.question');
    await page.keyboard.press('j');
    const first = await page.evaluate(() => document.activeElement?.getAttribute('data-slot'));
    await page.keyboard.press('j');
    const second = await page.evaluate(() => document.activeElement?.getAttribute('data-slot'));
    await page.keyboard.press('k');
    expect([first, second, await page.evaluate(() => document.activeElement?.getAttribute('data-slot'))]).toEqual([
      '1',
      '2',
      '1',
    ]);
  });
});

describe.skipIf(chromiumSkipped)('hostile or huge text', () => {
  /** The longest main-thread task while `question`'s answer (slot 5) streams, and while it reopens from history. */
  async function longestTasksOf(question: string) {
    await page.goto(`${server.baseUrl}/#/`);
    await page.waitForSelector('#question');
    const since = await page.evaluate(() => performance.now());
    await ask(page, server.baseUrl, question, { mode: 'parallel' });
    const id = await sessionIdOf(page);
    await waitForStatus(page, 'completed', 180_000);
    const streaming = await longestTaskSince(page, since);
    // Reopened from history: a hash change, so only the session's own work is measured.
    await page.goto(`${server.baseUrl}/#/sessions`);
    await page.waitForSelector('.history li');
    const reopen = await page.evaluate(() => performance.now());
    await page.goto(`${server.baseUrl}/#/sessions/${id}`);
    await waitForStatus(page, 'completed', 120_000);
    await page.click('#tab-rounds');
    // The progressive render is done when no part of the answer is still shown as raw text; two frames later every
    // long task it caused has been reported.
    await page.waitForFunction(() => {
      const answer = document.querySelector('article.answer[data-slot="5"]');
      return answer !== null && answer.querySelector('.streaming') === null;
    });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    return { streaming, opening: await longestTaskSince(page, reopen) };
  }

  it('streams and reopens a 5 MB one-paragraph answer with no main-thread task longer than a 20 KB one needs', async () => {
    // The page shows 20 KB of any answer and receives both in 64 KB pieces, so a 5 MB answer needs no task longer
    // than the 20 KB one beside it; a task that grows with the whole answer is seconds long. Both are measured here,
    // on this machine now; the absolute figure (goal ≤ 100 ms) is bench/ui.ts's.
    const small = await longestTasksOf('LARGE answer please');
    const huge = await longestTasksOf('HUGE answer please');
    expect(await page.$('article.answer[data-slot="5"] .rest-note')).not.toBeNull();
    // A long task is one over 50 ms, so a baseline with none counts as 50.
    const limit = 6 * Math.max(50, small.streaming, small.opening);
    console.log(
      `[reading] longest task: 20 KB answer streaming ${small.streaming.toFixed(0)} ms, opening ${small.opening.toFixed(0)} ms; ` +
        `5 MB answer ${huge.streaming.toFixed(0)} ms, ${huge.opening.toFixed(0)} ms (limit ${limit.toFixed(0)} ms)`,
    );
    expect(huge.streaming).toBeLessThanOrEqual(limit);
    expect(huge.opening).toBeLessThanOrEqual(limit);
  }, 300_000);

  it('shows bidi overrides and control characters as visible marks, and wraps a long URL at 390 px', async () => {
    const phone = await newContext(browser, { phone: true });
    const p = await phone.newPage();
    p.setDefaultTimeout(60_000);
    await signIn(p, server.baseUrl, ADMIN);
    await p.setViewportSize({ width: 390, height: 844 });
    await ask(p, server.baseUrl, 'SPOOF test', { mode: 'parallel' });
    await sessionIdOf(p);
    // The first live text is on the first screen of a phone.
    await p.waitForSelector('[data-testid=columns-live] .column .col-answer .answer-text');
    expect(await top(p, '[data-testid=columns-live] .column .col-answer .answer-text')).toBeLessThan(844);
    await waitForStatus(p, 'completed');
    const text = (await p.textContent('[data-testid=columns-live] .column[data-slot="5"] .answer-text'))!;
    expect(text).toContain('access ⟨U+202E⟩edoc_terces⟨U+202C⟩ granted ␛[2J bell␇ csi⟨U+009B⟩');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // The link wraps inside its column: no box scrolls sideways because of it.
    const fit = await p.$eval('[data-testid=columns-live] .column[data-slot="5"] .column-body', (body) => ({
      link: body.querySelector('a')!.getBoundingClientRect().width,
      column: body.clientWidth,
      overflow: body.scrollWidth - body.clientWidth,
    }));
    expect(fit.link).toBeLessThanOrEqual(fit.column);
    expect(fit.overflow).toBe(0);
    expect(fit.column).toBeLessThan(390);
    await p.screenshot({ path: join(ARTIFACTS, 'reading-live-phone.png') });
    await phone.close();
  });

  it('the live view has no serious axe violation in the dark theme either, on desktop and phone', async () => {
    for (const isPhone of [false, true]) {
      const ctx = await newContext(browser, { dark: true, phone: isPhone });
      const p = await ctx.newPage();
      p.setDefaultTimeout(60_000);
      await signIn(p, server.baseUrl, ADMIN);
      await ask(p, server.baseUrl, 'Dark theme check. Answer slowly.', { mode: 'deep', rounds: 2 });
      await p.waitForSelector('[data-testid=columns-live] .status-streaming');
      expect(await seriousViolations(p)).toEqual([]);
      await p.screenshot({ path: join(ARTIFACTS, `reading-live-dark-${isPhone ? 'phone' : 'desktop'}.png`) });
      await waitForStatus(p, 'completed');
      await p.screenshot({ path: join(ARTIFACTS, `reading-done-dark-${isPhone ? 'phone' : 'desktop'}.png`), fullPage: true });
      await ctx.close();
    }
  }, 180_000);

  it('violated no CSP directive', () => {
    expect(csp).toEqual([]);
  });
});

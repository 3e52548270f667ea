/**
 * The web UI in real Chromium (playwright-core, /usr/bin/chromium) against the server as `npm start` runs it:
 * first-view JavaScript as transferred; navigation → interactive, beside a bare page with one input; long tasks
 * while five offline models stream, beside the same page idle; a 25-answer session opening and unfolding; and the
 * longest task while a 5 MB one-paragraph answer streams and reopens.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, newContext } from '../test/ui/browser.js';
import { startHostileModel } from '../test/ui/hostile-model.js';
import { startLongModel } from '../test/ui/long-model.js';
import { ADMIN, startUiServer, type UiServer } from '../test/ui/server.js';
import { record, round } from './figures.js';
import { percentile, report } from './stats.js';

/** Signs in through the form when the server has accounts; returns the cookie header for API calls. */
async function enter(page: Page, baseUrl: string): Promise<string> {
  await page.goto(`${baseUrl}/`);
  await page.waitForSelector('#username, #question');
  if (await page.$('#username')) {
    await page.fill('#username', ADMIN.username);
    await page.fill('#password', ADMIN.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('#question');
  }
  const cookie = (await page.context().cookies()).find((c) => c.name === 'consilium_session');
  return cookie ? `consilium_session=${cookie.value}` : '';
}

async function signedInContext(browser: Browser, server: UiServer): Promise<{ context: BrowserContext; cookie: string }> {
  const context = await newContext(browser);
  const cookie = await enter(await context.newPage(), server.baseUrl);
  return { context, cookie };
}

/** Starts recording long tasks in every document of the context. */
async function recordLongTasks(context: BrowserContext) {
  await context.addInitScript(() => {
    const tasks: number[] = [];
    (window as unknown as { __longTasks: number[] }).__longTasks = tasks;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push(entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
}
const longTasks = (page: Page) => page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.splice(0));

async function firstView(browser: Browser, server: UiServer) {
  const { context } = await signedInContext(browser, server);
  const fresh = await browser.newContext({ storageState: await context.storageState() });
  const page = await fresh.newPage();
  const scripts: { path: string; bytes: number; beforeInteractive: boolean }[] = [];
  let interactive = false;
  page.on('requestfinished', async (request) => {
    if (request.resourceType() !== 'script') return;
    const beforeInteractive = !interactive;
    scripts.push({ path: new URL(request.url()).pathname, bytes: (await request.sizes()).responseBodySize, beforeInteractive });
  });
  await page.goto(`${server.baseUrl}/`);
  await page.waitForSelector('#question');
  interactive = true;
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(3500);
  const first = scripts.filter((s) => s.beforeInteractive);
  const later = scripts.filter((s) => !s.beforeInteractive);
  const kB = (list: typeof scripts) => list.reduce((n, s) => n + s.bytes, 0) / 1024;
  report(
    'first view: JavaScript transferred (gzip)',
    kB(first),
    'kB',
    `${(kB(first) / 80).toFixed(2)}× the 80 kB goal (${first.map((s) => s.path).join(', ')}); preloaded when idle: ${kB(later).toFixed(1)} kB`,
  );
  record({
    id: 'first-view',
    label: 'first view: JavaScript transferred (gzip)',
    value: round(kB(first), 1),
    unit: 'kB',
    goal: { op: '≤', value: 80 },
  });
  await fresh.close();
  await context.close();
}

async function timeToInteractive(
  browser: Browser,
  url: string,
  storageState?: Awaited<ReturnType<BrowserContext['storageState']>>,
) {
  const samples: number[] = [];
  for (let i = 0; i < 7; i++) {
    // A new context each time: an empty cache, as on a first visit.
    const context = await browser.newContext(storageState ? { storageState } : {});
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'commit' });
    // performance.now() counts from the navigation's start.
    samples.push(
      (await (
        await page.waitForFunction(() => document.querySelector('#question') && performance.now(), null, { polling: 'raf' })
      ).jsonValue()) as number,
    );
    await context.close();
  }
  return percentile(samples, 50);
}

async function navigation(browser: Browser, server: UiServer) {
  const bare = createServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>bare</title><textarea id="question"></textarea>');
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const { context } = await signedInContext(browser, server);
  const state = await context.storageState();
  await context.close();
  const baseline = await timeToInteractive(browser, `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`);
  const ui = await timeToInteractive(browser, `${server.baseUrl}/`, state);
  bare.close();
  report(
    'navigation → interactive, cold cache (p50)',
    ui,
    'ms',
    `goal ≤ 500 ms; baseline bare page ${baseline.toFixed(1)} ms (${(ui / baseline).toFixed(1)}×)`,
  );
  record({
    id: 'interactive',
    label: 'navigation → interactive, cold cache, p50',
    value: Math.round(ui),
    unit: 'ms',
    goal: { op: '≤', value: 500 },
  });
}

async function streaming(browser: Browser) {
  // ~7 ms mean delay per token per offline model, so about 500 deltas/s for five once streaming overheads are counted.
  const server = await startUiServer({ CONSILIUM_OFFLINE_TOKEN_MS: '7' });
  try {
    const { context, cookie } = await signedInContext(browser, server);
    await recordLongTasks(context);
    const page = await context.newPage();
    await enter(page, server.baseUrl);
    await page.waitForTimeout(3000);
    const idle = await longTasks(page);
    await page.fill('#question', 'How should a five-person team split an on-call rotation?');
    await page.selectOption('#rounds', '2');
    await page.click('form.ask-form button[type=submit]');
    await page.waitForURL(/#\/sessions\/ses_/);
    const id = decodeURIComponent(/#\/sessions\/([^/?]+)/.exec(page.url())![1]!);
    await page.waitForSelector('.session:not([data-status=running]):not([data-status=starting])', { timeout: 120_000 });
    const tasks = await longTasks(page);
    const events = await (await fetch(`${server.baseUrl}/sessions/${id}/events`, { headers: { cookie } })).text();
    const deltas = [...events.matchAll(/"ts":"([^"]+)","type":"answer.delta","round":1/g)].map((m) => Date.parse(m[1]!));
    const rate = deltas.length / ((Math.max(...deltas) - Math.min(...deltas)) / 1000);
    report('streaming: deltas/s in round 1 (all models)', rate, '/s', `${deltas.length} deltas`);
    report(
      'streaming: long tasks (> 50 ms)',
      tasks.length,
      'tasks',
      `longest ${Math.max(0, ...tasks).toFixed(0)} ms; goal none; idle baseline ${idle.length} tasks`,
    );
    record({
      id: 'streaming-long-tasks',
      label: 'five models streaming: long tasks (> 50 ms)',
      value: tasks.length,
      unit: '',
      goal: { op: '=', value: 0 },
    });
    await context.close();
  } finally {
    await server.close();
  }
}

async function longSession(browser: Browser) {
  const model = await startLongModel();
  const slots: Record<string, string> = {};
  for (const n of [1, 2, 3, 4, 5]) {
    slots[`CONSILIUM_SLOT${n}_PROVIDER`] = `long${n}`;
    slots[`CONSILIUM_SLOT${n}_MODEL`] = 'long-1';
    slots[`CONSILIUM_SLOT${n}_BASE_URL`] = model.baseUrl;
  }
  const server = await startUiServer(slots);
  try {
    const { context, cookie } = await signedInContext(browser, server);
    await recordLongTasks(context);
    const started = await fetch(`${server.baseUrl}/consilium/deep`, {
      method: 'POST',
      headers: { cookie, origin: server.baseUrl, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Kafka or NATS for the ingestion pipeline?', rounds: 5 }),
    });
    const result = (await started.json()) as { id: string; status: string; rounds: { answers: unknown[] }[] };
    const sessionId = result.id;
    console.log(`  (the long session: ${result.status}, ${result.rounds?.map((r) => r.answers.length).join('+')} answers)`);
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(`${server.baseUrl}/#/sessions/${sessionId}`);
    await page.waitForSelector('.session:not([data-status=running]):not([data-status=starting])', { timeout: 120_000 });
    const open = Date.now() - t0;
    // A finished session opens on its verdict: its rounds are one tab away.
    await page.click('#tab-rounds');
    await page.waitForSelector('article.answer');
    const loadTasks = await longTasks(page);
    const clicks: number[] = [];
    for (const button of await page.$$('button.fold[aria-expanded=false]')) {
      clicks.push(
        await button.evaluate(
          (b) =>
            new Promise<number>((resolve) => {
              const start = performance.now();
              (b as HTMLButtonElement).click();
              requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start)));
            }),
        ),
      );
    }
    const answers = await page.$$eval('article.answer', (a) => a.length);
    const words = await page.$$eval('article.answer .answer-text', (a) =>
      a.reduce((n, e) => n + (e.textContent ?? '').split(/\s+/).length, 0),
    );
    const unfoldTasks = await longTasks(page);
    report(
      'long session: open → rendered (25 answers)',
      open,
      'ms',
      `${answers} answers on screen, ${words} words; long tasks while loading: ${loadTasks.length} (longest ${Math.max(0, ...loadTasks).toFixed(0)} ms)`,
    );
    record({ id: 'session-open', label: '25-answer session: open → rendered', value: Math.round(open), unit: 'ms' });
    record({
      id: 'session-long-tasks',
      label: '25-answer session: long tasks while it opens',
      value: loadTasks.length,
      unit: '',
      goal: { op: '=', value: 0 },
    });
    report(
      'long session: unfold a round → next frame (max)',
      Math.max(...clicks),
      'ms',
      `${clicks.length} rounds unfolded; long tasks ${unfoldTasks.length} (longest ${Math.max(0, ...unfoldTasks).toFixed(0)} ms)`,
    );
    await context.close();
  } finally {
    await server.close();
    await model.close();
  }
}

/** A 5 MB answer with no blank line (slot 5), streamed then reopened: the longest main-thread task of each. */
async function hugeAnswer(browser: Browser) {
  const model = await startHostileModel('word '.repeat(1024 * 1024), { pieceSize: 64 * 1024 });
  const server = await startUiServer({
    CONSILIUM_OFFLINE_TOKEN_MS: '0',
    CONSILIUM_SLOT5_PROVIDER: 'huge',
    CONSILIUM_SLOT5_MODEL: 'huge-1',
    CONSILIUM_SLOT5_BASE_URL: model.baseUrl,
  });
  try {
    const { context } = await signedInContext(browser, server);
    await recordLongTasks(context);
    const page = await context.newPage();
    await enter(page, server.baseUrl);
    await longTasks(page);
    await page.fill('#question', 'A huge answer, please.');
    await page.check('input[name=mode][value=parallel]');
    await page.click('form.ask-form button[type=submit]');
    await page.waitForURL(/#\/sessions\/ses_/);
    const hash = new URL(page.url()).hash;
    await page.waitForSelector('.session:not([data-status=running]):not([data-status=starting])', { timeout: 300_000 });
    const streamed = await longTasks(page);
    await page.goto(`${server.baseUrl}/#/sessions`);
    await page.waitForSelector('.history li');
    await longTasks(page);
    await page.goto(`${server.baseUrl}/${hash}`);
    await page.waitForSelector('.session[data-status=completed]', { timeout: 120_000 });
    await page.click('#tab-rounds');
    await page.waitForSelector('article.answer[data-slot="5"] .rest-note');
    // Rendered when no part of it is still raw text; two frames later its long tasks are all reported.
    await page.waitForFunction(() => document.querySelector('article.answer[data-slot="5"] .streaming') === null);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const opened = await longTasks(page);
    const longest = Math.max(0, ...streamed, ...opened);
    report(
      'huge answer: longest task (5 MB, one paragraph)',
      longest,
      'ms',
      `streaming ${Math.max(0, ...streamed).toFixed(0)} ms, reopening ${Math.max(0, ...opened).toFixed(0)} ms; goal ≤ 100`,
    );
    record({
      id: 'huge-answer-longest-task',
      label: '5 MB one-paragraph answer: longest main-thread task (streaming or reopening)',
      value: Math.round(longest),
      unit: 'ms',
      goal: { op: '≤', value: 100 },
    });
    await context.close();
  } finally {
    await server.close();
    await model.close();
  }
}

export async function benchUi(): Promise<void> {
  console.log('ui: real Chromium against dist/server.mjs and dist/web (first runs build them)');
  const server = await startUiServer({ CONSILIUM_OFFLINE_TOKEN_MS: '0' });
  const { browser, close } = await launchChromium();
  try {
    await firstView(browser, server);
    await navigation(browser, server);
    await streaming(browser);
    await longSession(browser);
    await hugeAnswer(browser);
  } finally {
    await close();
    await server.close();
  }
}

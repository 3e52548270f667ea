/**
 * Debates you can trust, in real Chromium against the real server (`dist/server.mjs`) with scripted loopback models
 * (`support/scripted-models.ts`): the integrity report on the session page and in its Markdown export, the Ask form's
 * estimate and its budget warning before a run, an adaptive debate that stops after round 1, each slot's track record
 * on the providers page, and an evaluation's HTML report viewed with every request refused. axe on the new views.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalHtml, runEval } from '../../sdk/src/eval/index.js';
import { Consilium } from '../../sdk/src/facade/consilium.js';
import { ROOT } from '../support/process.js';
import { type ScriptedModels, scriptedPanel, startScriptedModels, sumQuestions } from '../support/scripted-models.js';
import { chromiumSkipped, launchChromium, newContext, watchCsp } from './browser.js';
import { ask, seriousViolations, sessionIdOf, signIn, waitForStatus } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

const ARTIFACTS = join(ROOT, 'test/ui/artifacts');
const PANEL = ['accurate-0.8', 'conformist-0.5', 'stubborn-0.6', 'qwen2.5:7b', 'qwen2.5:14b'];

let models: ScriptedModels;
let server: UiServer;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let context: BrowserContext;
let page: Page;
let csp: string[];

/** A sum on which the panel's five scripts give `agree` (all one answer) or not. */
function sumWhere(agree: boolean): string {
  for (let a = 11; a < 99; a++) {
    const question = `What is ${a} + 17?`;
    const answers = new Set(PANEL.map((m) => models.firstAnswer(m, question)));
    if ((answers.size === 1) === agree && (agree || answers.size < 4)) return question;
  }
  throw new Error('no such question');
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  models = await startScriptedModels({ seed: 4 });
  [server, { browser, close: closeBrowser }] = await Promise.all([
    startUiServer(scriptedPanel(models.baseUrl, PANEL)),
    launchChromium(),
  ]);
  context = await newContext(browser);
  csp = await watchCsp(context);
  page = await context.newPage();
  page.setDefaultTimeout(60_000);
  await signIn(page, server.baseUrl, ADMIN);
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await server?.close();
  await models?.close();
});

describe.skipIf(chromiumSkipped)('the integrity report in the browser', () => {
  it('shows the round-1 vote beside the verdict, each slot’s move and the flags, and exports them', async () => {
    const question = sumWhere(false);
    await ask(page, server.baseUrl, question, { mode: 'deep', rounds: 3 });
    const id = await sessionIdOf(page);
    await waitForStatus(page, 'completed');
    await page.waitForSelector('[data-testid=integrity]');
    // The vote as counted here from the scripts.
    const answers = PANEL.map((m) => models.firstAnswer(m, question));
    const counts = new Map<number, number>();
    for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
    const top = Math.max(...counts.values());
    const winners = [...counts].filter(([, n]) => n === top).map(([v]) => v);
    const vote = page.locator('[data-testid=integrity-vote] dd');
    if (winners.length === 1) expect(await vote.textContent()).toContain(`${winners[0]} ${top} of 5`);
    else expect(await vote.textContent()).toContain('a tie');
    const summary = (await page.textContent('[data-testid=integrity-summary]'))!;
    expect(summary).toMatch(/^(The verdict (agrees with|differs from) the round-1 vote|Round 1 has no majority)/);
    // Slot 3 never moves; the same-family flag names slots 4 and 5.
    expect(await page.getAttribute('.integrity-slots tr[data-slot="3"]', 'data-direction')).toBe('unchanged');
    expect(await page.textContent('.integrity-flags [data-kind=same_family]')).toContain(
      'Slots 4 and 5 are the same model family (qwen)',
    );
    const conformistMoved = winners.length === 1 && winners[0] !== answers[1];
    expect(await page.locator('.integrity-flags [data-kind=conformity]').count()).toBe(conformistMoved ? 1 : 0);
    await page.screenshot({ path: join(ARTIFACTS, 'integrity.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:has-text("Export Markdown")')]);
    const markdown = readFileSync((await download.path())!, 'utf8');
    expect(markdown).toContain('## Integrity');
    expect(markdown).toContain(`**${summary.replace(/[\\`*_[\]<>#|~&]/g, '\\$&')}**`);
    expect(markdown).toContain('**Same family** — Slots 4 and 5 are the same model family (qwen)');
    expect(id).toMatch(/^ses_/);
  });

  it('estimates the run on the Ask form, and says so before it starts when the budget will not cover it', async () => {
    await page.goto(`${server.baseUrl}/#/`);
    await page.fill('#question', 'What is 30 + 12?');
    await page.waitForSelector('[data-testid=estimate]');
    expect(await page.textContent('[data-testid=estimate]')).toMatch(
      /Estimate: 16–17 calls · [\d,]+–[\d,]+ tokens · \$[\d.]+–\$[\d.]+/,
    );
    await page.click('details.options summary');
    await page.fill('.option-grid input[step="0.01"]', '0.000001');
    await page.waitForSelector('[data-testid=estimate-budget]');
    expect(await page.textContent('[data-testid=estimate-budget]')).toMatch(/^The estimate exceeds the budget/);
    await page.check('#adaptive');
    await page.waitForFunction(() =>
      /Estimate: 5–17 calls/.test(document.querySelector('[data-testid=estimate]')?.textContent ?? ''),
    );
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('stops an adaptive debate after round 1 when the answers agree, the vote its verdict', async () => {
    // A fresh form (the last test left its options set).
    await page.goto(`${server.baseUrl}/#/`);
    await page.reload();
    await page.fill('#question', sumWhere(true));
    await page.click('details.options summary');
    await page.check('#adaptive');
    await page.click('form.ask-form button[type=submit]');
    await sessionIdOf(page);
    await waitForStatus(page, 'completed');
    await page.waitForSelector('[data-testid=integrity-adaptive]');
    expect(await page.textContent('[data-testid=integrity-adaptive]')).toMatch(
      /^Adaptive: 100 % of the round-1 answers agreed \(100 % needed\) — the debate stopped after round 1; that saved about 11 calls/,
    );
    expect(await page.textContent('.verdict')).toContain('No model wrote it: the round-1 answers agreed');
  });

  it('shows each slot’s track record on the providers page', async () => {
    await page.goto(`${server.baseUrl}/#/providers`);
    await page.waitForSelector('.track-record');
    expect(await page.textContent('[data-testid=track-record]')).toContain('Over your 2 deep debates');
    const stubborn = (await page.textContent('.track-record tr[data-slot="3"]'))!;
    expect(stubborn).toContain('stubborn-0.6');
    expect(stubborn).toContain('0 % (0 of 1)');
    expect(await seriousViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });

  it('opens an evaluation’s HTML report with its charts while every request is refused', async () => {
    const { consilium } = await Consilium.signIn({ baseUrl: server.baseUrl, ...ADMIN });
    const result = await runEval(consilium, {
      questions: sumQuestions(4, 4).map((q) => ({ ...q, grader: 'number' as const })),
      runId: 'ui',
      strategies: ['vote', 'debate'],
    });
    const dir = mkdtempSync(join(tmpdir(), 'consilium-eval-html-'));
    try {
      const file = join(dir, 'report.html');
      writeFileSync(file, evalHtml(result, { baseUrl: server.baseUrl }));
      const offline = await newContext(browser);
      const requested: string[] = [];
      await offline.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith('file://')) return route.continue();
        requested.push(url);
        return route.abort();
      });
      const report = await offline.newPage();
      await report.goto(`file://${file}`);
      expect(await report.locator('svg').count()).toBe(4);
      const widths = await report.$$eval('rect.bar', (bars) => bars.map((b) => b.getBoundingClientRect().width));
      expect(widths).toHaveLength(8);
      expect(widths.some((w) => w > 0)).toBe(true);
      expect(await report.textContent('h1')).toBe('Evaluation ui');
      await report.screenshot({ path: join(ARTIFACTS, 'eval-report.png'), fullPage: true });
      expect(requested).toEqual([]);
      await offline.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

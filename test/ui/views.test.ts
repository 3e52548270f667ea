/**
 * Every main view, in the light and the dark theme: axe-core finds no serious or critical violation, no CSP directive
 * is violated, and screenshots
 * (desktop and a 375 px phone) are saved to `test/ui/artifacts/` for a person to look at.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/process.js';
import { chromiumSkipped, launchChromium, newContext, watchCsp } from './browser.js';
import { signIn, waitForStatus } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

const ARTIFACTS = join(ROOT, 'test/ui/artifacts');
const AXE = readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

let server: UiServer;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let sessionId: string;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core run inside the page (evaluated through the driver, so the page's CSP need not allow it). */
async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  })) as Violation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ ...v, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
}

const VIEWS: { name: string; hash: string; ready: string; click?: string }[] = [
  { name: 'ask', hash: '#/', ready: '#question' },
  // A finished session opens on its verdict, with the final positions compared below it.
  { name: 'session', hash: '', ready: '.session[data-status=completed] [data-testid=consensus-matrix]' },
  { name: 'session-rounds', hash: '', ready: '.session[data-status=completed] #tab-rounds', click: '#tab-rounds' },
  { name: 'session-usage', hash: '', ready: '.session[data-status=completed] #tab-usage', click: '#tab-usage' },
  { name: 'history', hash: '#/sessions', ready: '.history li' },
  { name: 'tokens', hash: '#/tokens', ready: 'form.row-form' },
  { name: 'providers', hash: '#/providers', ready: 'table.providers' },
  { name: 'users', hash: '#/users', ready: '[data-testid=users]' },
];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  [server, { browser, close: closeBrowser }] = await Promise.all([
    startUiServer({ CONSILIUM_OFFLINE_TOKEN_MS: '0' }),
    launchChromium(),
  ]);
  // One finished deep debate to look at, run through the UI.
  const context = await newContext(browser);
  const page = await context.newPage();
  await signIn(page, server.baseUrl, ADMIN);
  await page.fill('#question', 'Which **queue** should the ingestion pipeline use: Kafka, NATS or SQS?');
  await page.click('form.ask-form button[type=submit]');
  await page.waitForURL(/#\/sessions\/ses_/);
  sessionId = decodeURIComponent(/#\/sessions\/([^/?]+)/.exec(page.url())![1]!);
  await waitForStatus(page, 'completed');
  await context.close();
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await server?.close();
});

describe.skipIf(chromiumSkipped).each([
  { theme: 'light', dark: false },
  { theme: 'dark', dark: true },
])('the $theme theme', ({ theme, dark }) => {
  it('has no serious or critical accessibility violation on any main view; screenshots on desktop and phone', async () => {
    const found: Record<string, Violation[]> = {};
    for (const phone of [false, true]) {
      const context = await newContext(browser, { dark, phone });
      const csp = await watchCsp(context);
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const device = phone ? 'phone' : 'desktop';
      await page.goto(`${server.baseUrl}/`);
      await page.waitForSelector('#username');
      await page.screenshot({ path: join(ARTIFACTS, `login-${theme}-${device}.png`), fullPage: true });
      if (!phone) found.login = await seriousViolations(page);
      await signIn(page, server.baseUrl, ADMIN);
      for (const view of VIEWS) {
        await page.goto(`${server.baseUrl}/${view.hash || `#/sessions/${sessionId}`}`);
        await page.waitForSelector(view.ready);
        if (view.click) {
          await page.click(view.click);
          await page.waitForSelector(`${view.click}[aria-selected=true]`);
        }
        // Off-screen answers skip rendering (content-visibility) until scrolled to; a full-page screenshot shows them
        // as a reader scrolling down would see them.
        await page.evaluate(() => {
          for (const e of document.querySelectorAll<HTMLElement>('.answer, .md-part, .stream-block'))
            e.style.contentVisibility = 'visible';
        });
        await page.screenshot({ path: join(ARTIFACTS, `${view.name}-${theme}-${device}.png`), fullPage: true });
        if (!phone) found[view.name] = await seriousViolations(page);
        else {
          // Nothing wider than a 375 px phone: the page never scrolls sideways (wide tables scroll in their own box).
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
        }
      }
      await context.close();
      // The views work under the strict CSP: nothing they load or run is blocked.
      expect(csp, `${theme} ${phone ? 'phone' : 'desktop'}`).toEqual([]);
    }
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
  });
});

describe.skipIf(chromiumSkipped)('the CSP watch', () => {
  it('sees a violation when there is one (an inline script the page did not ship)', async () => {
    const context = await newContext(browser);
    const csp = await watchCsp(context);
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/`);
    await page.waitForSelector('#username');
    await page.evaluate(() => document.body.append(Object.assign(document.createElement('script'), { textContent: '1' })));
    await expect.poll(() => csp.length).toBeGreaterThan(0);
    await context.close();
  });
});

describe.skipIf(chromiumSkipped)('the theme switch', () => {
  it('overrides the system setting, and is remembered', async () => {
    const context = await newContext(browser, { dark: true });
    const page = await context.newPage();
    await signIn(page, server.baseUrl, ADMIN);
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const darkBackground = await background();
    await page.selectOption('.theme select', 'light');
    expect(await background()).not.toBe(darkBackground);
    await page.reload();
    await page.waitForSelector('#question');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await context.close();
  });
});

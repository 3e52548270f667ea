/**
 * The HTTP reference at /docs/, opened in Chromium with every request that is not to the server
 * refused: it must list every operation of the contract, need nothing from elsewhere, and break no
 * rule of the server's Content-Security-Policy.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildHttpReference } from '../../docs/src/build-http.js';
import { loadContract } from '../../generator/src/contract.js';
import { listOperations } from '../../generator/src/routes.js';
import { type RunningServer, startServer } from '../support/server.js';
import { missingService, skipReason, skipsService } from '../support/services.js';

const CHROMIUM = process.env.CONSILIUM_CHROMIUM ?? '/usr/bin/chromium';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (skipsService('chromium')) return;
  if (!existsSync(CHROMIUM)) {
    throw missingService('chromium', `Chromium (${CHROMIUM})`, 'CONSILIUM_CHROMIUM');
  }
  buildHttpReference();
  server = await startServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // Playwright gives the browser a fresh temporary profile of its own.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('lists every operation, loading nothing but the server, with no CSP violation', async ({ skip }) => {
  skip(skipsService('chromium'), skipReason('chromium'));
  const page = await browser.newPage();
  const elsewhere: string[] = [];
  const fromServer: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${server.baseUrl}/`)) {
      fromServer.push(new URL(url).pathname);
      return route.continue();
    }
    elsewhere.push(url);
    return route.abort();
  });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));

  const response = await page.goto(`${server.baseUrl}/docs`);
  expect(response?.status()).toBe(200);
  expect(page.url()).toBe(`${server.baseUrl}/docs/`);
  expect(response?.headers()['content-security-policy']).toMatch(/default-src 'self'/);

  const expected = listOperations(loadContract()).map((o) => ({
    id: o.operationId,
    method: o.method.toUpperCase(),
    path: o.path,
  }));
  expect(expected.length).toBeGreaterThan(10);
  for (const op of expected) {
    const section = page.locator(`#op-${op.id}`);
    await expect.poll(() => section.count()).toBe(1);
    expect(await section.locator('h3').innerText()).toBe(`${op.method} ${op.path}`);
    expect(await page.locator(`nav a[href="#op-${op.id}"]`).count()).toBe(1);
  }
  // The stylesheet applied (a rule of it, not the browser default), so it loaded under the CSP.
  const columns = await page.evaluate(() => getComputedStyle(document.body).display);
  expect(columns).toBe('grid');
  expect(await page.locator('script').count()).toBe(0);
  expect(elsewhere).toEqual([]);
  expect(fromServer).toEqual(expect.arrayContaining(['/docs', '/docs/reference.css'])); // the redirect to /docs/ is followed inside the request
  expect(problems).toEqual([]);

  // A schema link from an operation lands on its section.
  await page.locator('#op-runDeepDebate a[href="#schema-DeepRequest"]').first().click();
  expect(page.url()).toMatch(/#schema-DeepRequest$/);
}, 60_000);

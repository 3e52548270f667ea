/**
 * The HTTP reference at /docs/, opened in Chromium with every request that is not to the server
 * refused: it must list every operation of the contract, need nothing from elsewhere, and break no
 * rule of the server's Content-Security-Policy.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildHttpReference } from '../../docs/src/build-http.js';
import { buildSdkReference } from '../../docs/src/sdk-build.js';
import { loadContract } from '../../generator/src/contract.js';
import { listOperations } from '../../generator/src/routes.js';
import { ROOT } from '../support/process.js';
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
  await buildSdkReference({ root: ROOT });
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
}, 300_000);

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
  // One script, the search box's, from the server itself.
  expect(await page.locator('script').evaluateAll((els) => els.map((e) => e.getAttribute('src')))).toEqual(['search.js']);
  expect(elsewhere).toEqual([]);
  expect(fromServer).toEqual(expect.arrayContaining(['/docs', '/docs/reference.css', '/docs/search.js'])); // the redirect to /docs/ is followed inside the request
  expect(problems).toEqual([]);

  // A schema link from an operation lands on its section.
  await page.locator('#op-runDeepDebate a[href="#schema-DeepRequest"]').first().click();
  expect(page.url()).toMatch(/#schema-DeepRequest$/);
}, 60_000);

/** How far the page scrolls sideways: 0 when it fits the screen. */
const sideways = (page: import('playwright-core').Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

it('on a 390 px phone: /docs/ fits, its search finds an operation, and it links the SDK reference at /docs/sdk/, which fits too', async ({
  skip,
}) => {
  skip(skipsService('chromium'), skipReason('chromium'));
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.route('**/*', (route) =>
    route.request().url().startsWith(`${server.baseUrl}/`) ? route.continue() : route.abort(),
  );
  await page.goto(`${server.baseUrl}/docs/`);
  expect(await sideways(page)).toBe(0);

  // Search: typing narrows the operations (page and menu) to those that match.
  const search = page.locator('#search');
  await expect.poll(() => search.isVisible()).toBe(true);
  await search.fill('follow-ups');
  await expect.poll(() => page.locator('#search-count').innerText()).toBe('1 match');
  expect(await page.locator('#op-askFollowUp').isVisible()).toBe(true);
  expect(await page.locator('#op-runDeepDebate').isVisible()).toBe(false);
  expect(await page.locator('nav a[href="#op-askFollowUp"]').isVisible()).toBe(true);
  expect(await page.locator('nav a[href="#op-runDeepDebate"]').isVisible()).toBe(false);
  await search.fill('streamSessionEvents');
  await expect.poll(() => page.locator('#op-streamSessionEvents').isVisible()).toBe(true);
  await search.fill('');
  await expect.poll(() => page.locator('#op-runDeepDebate').isVisible()).toBe(true);
  expect(await sideways(page)).toBe(0);

  // The SDK reference, linked from the page and served by the server.
  await page.locator('header a[href="sdk/"]').click();
  await page.waitForURL(`${server.baseUrl}/docs/sdk/`);
  expect(await page.locator('h1, h2').first().innerText()).toMatch(/Consilium SDK|@consilium\/sdk/);
  expect(await sideways(page)).toBe(0);
  const facade = await page.goto(`${server.baseUrl}/docs/sdk/classes/_consilium_sdk.Consilium.html`);
  expect(facade?.status()).toBe(200);
  // Its own policy: typedoc's script adds <style> elements; scripts are still only the server's own files.
  expect(facade?.headers()['content-security-policy']).toMatch(/script-src 'self';.*style-src 'self' 'unsafe-inline'/);
  expect(await page.locator('h1').innerText()).toContain('Consilium');
  expect(await sideways(page)).toBe(0);
  // Nothing outside the reference's folder is served through it.
  expect((await page.request.get(`${server.baseUrl}/docs/sdk/..%2f..%2fopenapi%2fopenapi.yaml`)).status()).toBe(404);
  expect(problems, problems.join('\n')).toEqual([]);
}, 120_000);

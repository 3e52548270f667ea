/**
 * One colour per slot everywhere: the web UI takes its slot colours from the SDK's table (`SLOT_COLOURS`), the one
 * the `consilium` CLI draws from too (test/sdk/cli.test.ts checks the terminal side), in both themes, under the CSP.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SLOT_COLOURS } from '../../sdk/src/slots.js';
import { chromiumSkipped, launchChromium, newContext, watchCsp } from './browser.js';
import { signIn } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

let server: UiServer;
let browser: Browser;
let closeBrowser: () => Promise<void>;

beforeAll(async () => {
  if (chromiumSkipped) return;
  server = await startUiServer();
  ({ browser, close: closeBrowser } = await launchChromium());
}, 240_000);

afterAll(async () => {
  await closeBrowser?.();
  await server?.close();
});

it.skipIf(chromiumSkipped)(
  'the slot colours are the SDK table, light and dark, on the slots drawn',
  async () => {
    for (const dark of [false, true]) {
      const context = await newContext(browser, { dark });
      const violations = await watchCsp(context);
      const page = await context.newPage();
      await signIn(page, server.baseUrl, ADMIN);
      await page.goto(`${server.baseUrl}/#/providers`);
      await page.waitForSelector('.slot-5');
      const drawn = await page.evaluate(() =>
        [1, 2, 3, 4, 5].map((n) =>
          getComputedStyle(document.querySelector(`.slot-${n}`)!)
            .getPropertyValue('--c')
            .trim(),
        ),
      );
      const root = await page.evaluate(() =>
        [1, 2, 3, 4, 5].map((n) => getComputedStyle(document.documentElement).getPropertyValue(`--slot-${n}`).trim()),
      );
      const expected = SLOT_COLOURS.map((c) => (dark ? c.dark : c.light));
      expect(root).toEqual(expected);
      expect(drawn).toEqual(expected);
      expect(violations).toEqual([]);
      await context.close();
    }
  },
  120_000,
);

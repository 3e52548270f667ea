/**
 * Debian's Chromium driven by playwright-core, as the browser tests and the UI bench run it: headless, no network
 * chatter of its own, a fresh profile each launch (playwright's `launch` makes a new empty `--user-data-dir` itself and
 * refuses one passed as an argument). `test/support/setup.sh` (npm test's pretest) installs it.
 */
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { missingService, skipReason, skipsService } from '../support/services.js';

export const CHROMIUM = process.env.CONSILIUM_CHROMIUM ?? '/usr/bin/chromium';

/** `CONSILIUM_SKIP_SERVICES` names chromium: the browser tests skip (`describe.skipIf`); otherwise they need it. */
export const chromiumSkipped = skipsService('chromium');
if (chromiumSkipped) console.warn(`[chromium tests skipped] ${skipReason('chromium')}`);

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<LaunchedBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw missingService('chromium', `Chromium (${CHROMIUM})`, 'CONSILIUM_CHROMIUM');
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
    },
  };
}

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 740 };

export async function newContext(browser: Browser, options: { phone?: boolean; dark?: boolean } = {}): Promise<BrowserContext> {
  return browser.newContext({
    viewport: options.phone ? PHONE : DESKTOP,
    colorScheme: options.dark ? 'dark' : 'light',
    acceptDownloads: true,
    ...(options.phone && { isMobile: true, hasTouch: true, deviceScaleFactor: 2 }),
  });
}

/**
 * Records every Content Security Policy violation in the context's pages: the `securitypolicyviolation` events of every
 * document (reported through a binding, so reloads lose none) and Chromium's console reports of blocked resources.
 */
export async function watchCsp(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.exposeBinding('__cspViolation', (_source, text: string) => {
    violations.push(text);
  });
  await context.addInitScript(() => {
    addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __cspViolation(text: string): void }).__cspViolation;
      report(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} in ${e.documentURI} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  const watch = (page: import('playwright-core').Page) =>
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(`console: ${message.text()}`);
    });
  for (const page of context.pages()) watch(page);
  context.on('page', watch);
  return violations;
}

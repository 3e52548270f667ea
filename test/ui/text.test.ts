/**
 * Untrusted text shown as the text it is, and focus for keyboard and screen-reader users, in real Chromium against the
 * real server: a question and answers full of HTML-looking text (slot 5 is a loopback model writing Markdown mixed with
 * raw tags, the other slots the offline stand-in, which quotes the question), the sign-in form, starting a debate by
 * button and by Ctrl+Enter, the nav while a debate runs, and the follow-up form's defaults.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipped, launchChromium, newContext, watchCsp } from './browser.js';
import { startHostileModel } from './hostile-model.js';
import { sessionIdOf, signIn, waitForStatus } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

/** Markdown a model might write, with raw HTML in it: all of it must show, formatted or as literal text. */
const ANSWER = [
  '## Where user data goes',
  'Inside a <textarea> element it is text; inside <title> too. <img src=x onerror="window.__pwned=1">',
  '- **bold** item with `<b>code</b>`\n- [safe link](https://example.org/docs) and [bad link](javascript:window.__pwned=2)',
  '<div>raw block</div>',
  // Cut off mid-tag: the rest of the answer must still be there, and still Markdown.
  '<script src="https://evil.example/x.js"\n## After the cut-off script',
  'Still **here** at the end.',
].join('\n\n');
const QUESTION = 'Is it safe to put <b>user data</b> in a <textarea>?\nAnd in <title>? </p>';
/** The question as the offline stand-in quotes it: whitespace collapsed. */
const QUOTED = QUESTION.replace(/\s+/g, ' ');

let server: UiServer;
let model: Awaited<ReturnType<typeof startHostileModel>>;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let context: BrowserContext;
let page: Page;
let csp: string[];
/** Console errors and uncaught exceptions once signed in (the sign-in page's own 401 from /auth/me is expected). */
const errors: string[] = [];
let watchErrors = false;
let parallelId: string;

const focused = () =>
  page.evaluate(() => {
    const e = document.activeElement;
    return e ? `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className ? `.${e.className}` : ''}` : 'none';
  });
const currentNav = () => page.$$eval('nav[aria-label=Main] a[aria-current=page]', (links) => links.map((a) => a.textContent));

beforeAll(async () => {
  model = await startHostileModel(ANSWER);
  [server, { browser, close: closeBrowser }] = await Promise.all([
    startUiServer({
      CONSILIUM_OFFLINE_TOKEN_MS: '0',
      CONSILIUM_SLOT5_PROVIDER: 'markup',
      CONSILIUM_SLOT5_MODEL: 'markup-1',
      CONSILIUM_SLOT5_BASE_URL: model.baseUrl,
    }),
    launchChromium(),
  ]);
  context = await newContext(browser);
  csp = await watchCsp(context);
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('console', (m) => {
    if (watchErrors && m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await signIn(page, server.baseUrl, ADMIN);
  watchErrors = true;
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await server?.close();
  await model?.close();
});

describe.skipIf(chromiumSkipped)('focus', () => {
  it('the sign-in page starts on the username field', async () => {
    const fresh = await newContext(browser);
    const p = await fresh.newPage();
    await p.goto(`${server.baseUrl}/`);
    await p.waitForSelector('#username');
    await expect.poll(() => p.evaluate(() => document.activeElement?.id)).toBe('username');
    // So a keyboard user signs in by typing.
    await p.keyboard.type(ADMIN.username);
    expect(await p.inputValue('#username')).toBe(ADMIN.username);
    await fresh.close();
  });
});

describe.skipIf(chromiumSkipped)('a debate started from Ask', () => {
  it('by the button: focus moves to the session heading, which names the question and is described by its status', async () => {
    await page.goto(`${server.baseUrl}/#/`);
    await page.fill('#question', QUESTION);
    await page.check('input[name=mode][value=parallel]');
    await page.focus('form.ask-form button[type=submit]');
    await page.keyboard.press('Enter');
    parallelId = await sessionIdOf(page);
    await expect.poll(focused).toBe('h1.question');
    const heading = await page.$eval('h1.question', (h) => ({
      text: h.textContent,
      status: document.getElementById(h.getAttribute('aria-describedby') ?? '')?.getAttribute('role'),
    }));
    expect(heading).toEqual({ text: QUESTION, status: 'status' });
    // Watching the debate just started from Ask: Ask is the current page, not History.
    expect(await currentNav()).toEqual(['Ask']);
    await waitForStatus(page, 'completed');
    expect(await page.textContent('[data-testid=session-status]')).toBe('Debate completed');
  });

  it('shows the question exactly as typed: no tag lost, none added, line breaks kept', async () => {
    expect(await page.textContent('h1.question')).toBe(QUESTION);
    expect(await page.$$eval('h1.question *', (children) => children.length)).toBe(0);
    expect(await page.$eval('h1.question', (h) => (h as HTMLElement).innerText)).toContain('<textarea>?\nAnd in');
    // History shows the same text.
    await page.goto(`${server.baseUrl}/#/sessions`);
    await page.waitForSelector(`.history a[href$="${parallelId}"]`);
    expect(await page.textContent(`.history a[href$="${parallelId}"] .history-q`)).toBe(QUESTION);
    // Opened from History, it sits under History.
    await page.click(`.history a[href$="${parallelId}"]`);
    await waitForStatus(page, 'completed');
    expect(await currentNav()).toEqual(['History']);
  });

  it("renders a model's Markdown, and every raw tag in it as literal text: none parsed, dropped or run", async () => {
    for (const reload of [false, true]) {
      if (reload) await page.reload();
      await page.waitForSelector('article.answer[data-slot="5"].answer-done .answer-text h2');
      const answer = 'article.answer[data-slot="5"] .answer-text';
      const text = (await page.textContent(answer))!;
      for (const literal of [
        'Inside a <textarea> element it is text; inside <title> too. <img src=x onerror="window.__pwned=1">',
        '<div>raw block</div>',
        '<script src="https://evil.example/x.js"',
        'Still here at the end.',
      ])
        expect(text, `reload: ${reload}`).toContain(literal);
      expect(await page.$$eval(`${answer} h2`, (hs) => hs.map((h) => h.textContent))).toEqual([
        'Where user data goes',
        'After the cut-off script',
      ]);
      expect(await page.textContent(`${answer} strong`)).toBe('bold');
      expect(await page.textContent(`${answer} code`)).toBe('<b>code</b>');
      const links = await page.$$eval(`${answer} a`, (as) =>
        as.map((a) => ({ text: a.textContent, href: a.getAttribute('href'), rel: a.getAttribute('rel') })),
      );
      const rel = 'noopener noreferrer nofollow';
      expect(links).toEqual([
        { text: 'safe link', href: 'https://example.org/docs', rel },
        // A `javascript:` link is its text only.
        { text: 'bad link', href: null, rel },
        // A bare URL in text is a link, as GFM has it, inside the literal `<script src="…"`.
        { text: 'https://evil.example/x.js', href: 'https://evil.example/x.js', rel },
      ]);
      // The offline stand-ins quote the question: literally too.
      expect(await page.textContent('article.answer[data-slot="1"] .answer-text')).toContain(`"${QUOTED}"`);
      expect(await page.$$eval('main img, main script, main textarea, main title, main b', (els) => els.length)).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    }
  });

  it('by Ctrl+Enter: focus moves to the new session heading; the verdict shows the quoted question literally', async () => {
    await page.goto(`${server.baseUrl}/#/`);
    await page.fill('#question', QUESTION);
    await page.check('input[name=mode][value=deep]');
    await page.selectOption('#rounds', '2');
    await page.focus('#question');
    await page.keyboard.press('Control+Enter');
    const id = await sessionIdOf(page);
    expect(id).not.toBe(parallelId);
    await expect.poll(focused).toBe('h1.question');
    expect(await currentNav()).toEqual(['Ask']);
    await page.waitForSelector('.session:not([data-status=running]):not([data-status=starting]) .verdict p');
    expect(await page.textContent('section.verdict')).toContain(`"${QUOTED}"`);
  });

  it("the follow-up form asks for the API's default of 3 rounds; focus moves to the follow-up's heading", async () => {
    await page.goto(`${server.baseUrl}/#/sessions/${parallelId}`);
    await waitForStatus(page, 'completed');
    await page.selectOption('#follow-up-mode', 'deep');
    expect(await page.inputValue('#follow-up-rounds')).toBe('3');
    await page.fill('#follow-up', 'And <select> or <option>?');
    const posted = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/sessions/${parallelId}/follow-ups`));
    await page.focus('#follow-up');
    await page.keyboard.press('Enter');
    expect((await posted).postDataJSON()).toMatchObject({ question: 'And <select> or <option>?', mode: 'deep', rounds: 3 });
    await page.waitForURL((url) => /#\/sessions\/ses_/.test(url.hash) && !url.hash.includes(parallelId));
    await expect.poll(focused).toBe('h1.question');
    expect(await page.textContent('h1.question')).toBe('And <select> or <option>?');
  });

  it('logged no console error and violated no CSP directive on the way', () => {
    expect(errors).toEqual([]);
    expect(csp).toEqual([]);
  });
});

/** Steps the browser tests share: signing in through the form, asking through the form, reading what is shown. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { ROOT } from '../support/process.js';

export async function signIn(page: Page, baseUrl: string, user: { username: string; password: string }) {
  await page.goto(`${baseUrl}/`);
  await page.waitForSelector('#username');
  await page.fill('#username', user.username);
  await page.fill('#password', user.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('[data-testid=username]');
  expect(await page.textContent('[data-testid=username]')).toContain(user.username);
}

export async function ask(
  page: Page,
  baseUrl: string,
  question: string,
  options: { mode?: 'single' | 'parallel' | 'deep'; rounds?: number } = {},
) {
  await page.goto(`${baseUrl}/#/`);
  await page.waitForSelector('#question');
  await page.fill('#question', question);
  if (options.mode) await page.check(`input[name=mode][value=${options.mode}]`);
  if (options.rounds) await page.selectOption('#rounds', String(options.rounds));
  await page.click('form.ask-form button[type=submit]');
}

/** The session id from the page's address (`#/sessions/<id>`), once the debate has one. */
export async function sessionIdOf(page: Page): Promise<string> {
  await page.waitForURL(/#\/sessions\/ses_/);
  return decodeURIComponent(/#\/sessions\/([^/?]+)/.exec(page.url())![1]!);
}

export const waitForStatus = (page: Page, status: string, timeout = 60_000) =>
  page.waitForSelector(`.session[data-status=${status}]`, { timeout });

/**
 * Each answer's text, by `round:slot`, as shown: from every place the session view shows answers (`[data-answer]`:
 * the live columns, and the rounds tab's cards). An answer shown in both must read the same in both.
 */
export async function shownAnswers(page: Page): Promise<Record<string, string>> {
  // A long finished answer renders its Markdown in parts, showing the ones still to come as text: wait for them.
  await page.waitForFunction(() => !document.querySelector('.session [data-answer] :is(.md-part.streaming, .md.streaming)'));
  const found = await page.$$eval('.session [data-answer]', (answers) =>
    answers.map((a) => [
      `${a.getAttribute('data-round')}:${a.getAttribute('data-slot')}`,
      (a.querySelector('.answer-text') as HTMLElement).textContent!.trim(),
    ]),
  );
  const shown: Record<string, string> = {};
  const squash = (text: string) => text.replace(/\s+/g, ' ');
  for (const [key, text] of found as [string, string][]) {
    if (key in shown) expect(squash(text), `answer ${key} in the columns and in the rounds`).toBe(squash(shown[key]!));
    else shown[key] = text;
  }
  return shown;
}

/** Opens one of a finished session's details tabs (Compare, Rounds, Usage and cost). */
export async function openTab(page: Page, tab: 'compare' | 'rounds' | 'usage') {
  await page.click(`#tab-${tab}`);
  await page.waitForSelector(`#tab-${tab}[aria-selected=true]`);
}

/** Opens the session's Rounds tab (when it has tabs) and every folded round, so all answers are on the page. */
export async function unfoldRounds(page: Page) {
  if (await page.$('#tab-rounds[aria-selected=false]')) await openTab(page, 'rounds');
  for (const button of await page.$$('button.fold[aria-expanded=false]')) await button.click();
}

const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it stands, each as `rule: first target`. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: object[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  })) as { id: string; impact: string; nodes: { target: string[] }[] }[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes[0]?.target}`);
}

/**
 * The password form on the tokens view, in real Chromium against the real server: changing one's own password with
 * "sign out everywhere else" checked (the default) ends the user's other sign-ins and API tokens and keeps this one;
 * unchecked, they keep working. An admin's reset in the users view ends the user's sign-ins and tokens too.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipped, launchChromium, newContext } from './browser.js';
import { signIn } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

let server: UiServer;
let browser: Browser;
let closeBrowser: () => Promise<void>;

beforeAll(async () => {
  [server, { browser, close: closeBrowser }] = await Promise.all([startUiServer(), launchChromium()]);
}, 120_000);

afterAll(async () => {
  await closeBrowser?.();
  await server?.close();
});

/** A fresh sign-in over the API, as another browser or script would hold it: its cookie. */
async function login(user: { username: string; password: string }): Promise<string> {
  const res = await fetch(`${server.baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
  });
  expect(res.status).toBe(200);
  return /consilium_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
}

const post = (path: string, cookie: string, body: unknown) =>
  fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { cookie, origin: server.baseUrl, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Whether a credential still gets the user in (`/auth/me`). */
async function works(credential: { cookie: string } | { token: string }): Promise<boolean> {
  const headers: Record<string, string> =
    'cookie' in credential ? { cookie: credential.cookie } : { authorization: `Bearer ${credential.token}` };
  const status = (await fetch(`${server.baseUrl}/auth/me`, { headers })).status;
  expect([200, 401]).toContain(status);
  return status === 200;
}

/** A new user with a second sign-in and an API token, both made outside the page. */
async function userWithCredentials(username: string) {
  const admin = await login(ADMIN);
  const user = { username, password: `${username}-password-1` };
  expect((await post('/users', admin, { ...user, role: 'user' })).status).toBe(201);
  const elsewhere = await login(user);
  const created = await post('/auth/tokens', elsewhere, { name: 'script' });
  expect(created.status).toBe(201);
  const { token } = (await created.json()) as { token: string };
  return { admin, user, elsewhere: { cookie: elsewhere }, token: { token } };
}

async function changePassword(page: Page, current: string, next: string, endOthers: boolean) {
  await page.goto(`${server.baseUrl}/#/tokens`);
  const form = page.locator('[data-testid=password] form');
  // On by default: a password changed because it may have leaked should leave no other way in.
  expect(await form.getByRole('checkbox').isChecked()).toBe(true);
  await form.getByLabel('Current password').fill(current);
  await form.getByLabel('New password').fill(next);
  await form.getByRole('checkbox').setChecked(endOthers);
  await form.getByRole('button', { name: 'Change password' }).click();
  return (await page.locator('[data-testid=password] [role=status]').textContent()) ?? '';
}

describe.skipIf(chromiumSkipped)('the password form', () => {
  it('ends the other sign-ins and the API tokens by default; this sign-in stays', async () => {
    const { user, elsewhere, token } = await userWithCredentials('pat');
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, server.baseUrl, user);
    const said = await changePassword(page, user.password, 'pat-password-2', true);
    expect(said).toContain('Your other sign-ins ended and your API tokens were revoked');
    expect(await works(elsewhere)).toBe(false);
    expect(await works(token)).toBe(false);
    // This page is still signed in: the tokens view loads its list.
    await page.reload();
    await page.waitForSelector('table.tokens, [data-testid=password]');
    expect(await page.textContent('[data-testid=username]')).toContain('pat');
    await context.close();
  });

  it('keeps them when the box is unchecked, and says so', async () => {
    const { user, elsewhere, token } = await userWithCredentials('quinn');
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, server.baseUrl, user);
    const said = await changePassword(page, user.password, 'quinn-password-2', false);
    expect(said).toContain('keep working');
    expect(await works(elsewhere)).toBe(true);
    expect(await works(token)).toBe(true);
    await context.close();
  });

  it("an admin's reset in the users view ends the user's sign-ins and tokens", async () => {
    const { elsewhere, token } = await userWithCredentials('ria');
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, server.baseUrl, ADMIN);
    await page.goto(`${server.baseUrl}/#/users`);
    const row = page.locator('[data-testid=users] tr', { hasText: 'ria' });
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: /reset password/i }).click();
    await page.waitForSelector('text=Password for ria');
    expect(await works(elsewhere)).toBe(false);
    expect(await works(token)).toBe(false);
    await context.close();
  });
});

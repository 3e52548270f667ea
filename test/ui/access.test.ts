/**
 * A page following a running session someone shared, in real Chromium against the real server: when the owner stops
 * sharing it, the reader's page stops following it at once and says why, while the debate goes on for its owner.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipped, launchChromium, newContext } from './browser.js';
import { signIn } from './pages.js';
import { ADMIN, startUiServer, type UiServer } from './server.js';

const READER = { username: 'reader-of-shares', password: 'reader-password-1' };

describe.skipIf(chromiumSkipped)('a shared session followed live, then unshared', () => {
  let server: UiServer;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let owner: Page;
  let reader: Page;

  const api = (on: Page, method: string, path: string, body?: unknown) =>
    on.evaluate(
      async ([m, p, b]) => {
        const res = await fetch(p as string, {
          method: m as string,
          headers: { 'content-type': 'application/json' },
          ...(b !== undefined && { body: JSON.stringify(b) }),
        });
        return { status: res.status, body: res.status === 204 ? null : await res.json() };
      },
      [method, path, body] as const,
    ) as Promise<{ status: number; body: Record<string, unknown> | null }>;

  beforeAll(async () => {
    // Paced offline models: a three-round debate runs for many seconds.
    [server, { browser, close: closeBrowser }] = await Promise.all([
      startUiServer({ CONSILIUM_OFFLINE_TOKEN_MS: '20' }),
      launchChromium(),
    ]);
    owner = await (await newContext(browser)).newPage();
    owner.setDefaultTimeout(30_000);
    await signIn(owner, server.baseUrl, ADMIN);
    expect((await api(owner, 'POST', '/users', READER)).status).toBe(201);
    reader = await (await newContext(browser)).newPage();
    reader.setDefaultTimeout(30_000);
    await signIn(reader, server.baseUrl, READER);
  }, 120_000);

  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
  });

  it('ends the reader’s live view with the reason, and the debate runs on', async () => {
    const started = await api(owner, 'POST', '/consilium/deep', { question: 'Shared while it runs?', rounds: 3, detach: true });
    const id = started.body!.sessionId as string;
    expect((await api(owner, 'POST', `/sessions/${id}/shares`, { username: READER.username })).status).toBe(200);
    await reader.goto(`${server.baseUrl}/#/sessions/${id}`);
    await reader.waitForSelector('[data-testid=columns-live] .status-streaming');
    const users = (await api(owner, 'GET', '/users')).body!.items as { id: string; username: string }[];
    const readerId = users.find((u) => u.username === READER.username)!.id;
    expect((await api(owner, 'DELETE', `/sessions/${id}/shares/${readerId}`)).status).toBe(204);
    await reader.waitForSelector('[role=alert]:has-text("The owner stopped sharing this session with you.")');
    // Still running for its owner: the reader's page ended because of the share, not the debate.
    expect((await api(owner, 'GET', `/sessions/${id}`)).body!.status).toBe('running');
    await api(owner, 'POST', `/sessions/${id}/cancel`);
  });
});

/**
 * A private wiki read as the operator's bot: the run's MediaWiki served a second time with `read` denied to
 * anonymous users (`startPrivateMediaWiki`), a bot password made by MediaWiki's own `createBotPassword.php`, and
 * the server configured with it (`botUser`, `CONSILIUM_WIKI_<NAME>_BOT_PASSWORD`). The grounded debate reads the
 * pages only an account can read, so the login happened; a wrong bot password degrades the grounding (absent,
 * said in the session and in `/providers`) and the debate still completes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderCatalogue, Session } from '../../sdk/src/index.js';
import { createBotPassword, mediawiki, type PrivateMediaWiki, seedPages, startPrivateMediaWiki } from '../support/mediawiki.js';
import { type RunningServer, startServer } from '../support/server.js';

const PAGE = 'Grounding Private Handbook';
const TEXT = 'Only the on-call team may restart the quokka cluster, and only after paging its owner.';
const QUESTION = 'Who may restart the quokka cluster?';

describe.skipIf(!mediawiki.available)('a private wiki read with a bot password', () => {
  let wiki: PrivateMediaWiki;
  let server: RunningServer;

  beforeAll(async () => {
    await seedPages({ [PAGE]: TEXT });
    wiki = await startPrivateMediaWiki();
    const bot = await createBotPassword();
    server = await startServer({
      CONSILIUM_WIKIS: JSON.stringify({
        'private-wiki': { api: wiki.api, botUser: bot.user, pages: 1 },
        'wrong-password': { api: wiki.api, botUser: bot.user, pages: 1 },
      }),
      CONSILIUM_WIKI_PRIVATE_WIKI_BOT_PASSWORD: bot.password,
      // Shaped like a bot password (32 of `0-9a-w`), one character off.
      CONSILIUM_WIKI_WRONG_PASSWORD_BOT_PASSWORD: `${bot.password.slice(0, -1)}${bot.password.endsWith('a') ? 'b' : 'a'}`,
    });
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    wiki?.close();
  });

  const debate = async (source: string) => {
    const res = await server.fetch('/consilium/deep', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: QUESTION, rounds: 2, grounding: { source } }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Session;
  };

  it('the wiki is private: an anonymous search is refused', async () => {
    const res = await fetch(`${wiki.api}?action=query&list=search&srsearch=quokka&format=json&formatversion=2`);
    expect(((await res.json()) as { error?: { code: string } }).error?.code).toBe('readapidenied');
  });

  it('logs in as the bot and grounds the debate in pages only an account can read', async () => {
    const session = await debate('private-wiki');
    expect(session.status).toBe('completed');
    const g = session.grounding!;
    expect(g.note).toBeUndefined();
    expect(g.status).toBe('complete');
    expect(g.pages.map((p) => [p.title, p.text])).toEqual([[PAGE, TEXT]]);
    expect(g.verifiedCitations).toBeGreaterThan(0);
    const providers = (await (await server.fetch('/providers')).json()) as ProviderCatalogue;
    expect(providers.wikis?.find((w) => w.name === 'private-wiki')).toMatchObject({ status: 'reachable' });
  });

  it('a wrong bot password degrades the grounding visibly and never fails the debate', async () => {
    const session = await debate('wrong-password');
    expect(session.status).toBe('completed');
    expect(session.rounds).toHaveLength(2);
    const g = session.grounding!;
    expect(g.status).toBe('absent');
    expect(g.pages).toEqual([]);
    expect(g.note).toMatch(/could not be read before round 1 \(login-failed\)/);
    expect(g.lookups[0]).toMatchObject({ tool: 'retrieve', ok: false, error: 'login-failed' });
    const providers = (await (await server.fetch('/providers')).json()) as ProviderCatalogue;
    expect(providers.wikis?.find((w) => w.name === 'wrong-password')).toMatchObject({
      status: 'unreachable',
      error: 'login-failed',
    });
  });
});

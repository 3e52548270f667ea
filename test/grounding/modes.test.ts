/**
 * Single-model and parallel runs grounded in the live MediaWiki, through the real server with the offline stand-ins:
 * the same retrieval as a deep debate's before any model answers, the same numbered sources in every prompt, the
 * answers' citations checked, the sources recorded with the session and in the result, told in the session's events
 * (before the round, and once more with the checked citations before it ends); no tools (no critique round). The SDK
 * facade and the CLI's `ask --wiki` / `parallel --wiki` ask for it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResult, DebateEvent, Grounding, ParallelResult, Session } from '../../sdk/src/index.js';
import { Consilium } from '../../sdk/src/index.js';
import { mediawiki, seedPages, startMediaWiki } from '../support/mediawiki.js';
import { type RunningServer, startServer } from '../support/server.js';

const PAGES = {
  'Grounding Modes Policy': 'Backups of the okapi archive run every night at two.',
  'Grounding Modes Review': 'The okapi archive lost a day of backups when the night job was paused.',
};
const QUESTION = 'How often do backups of the okapi archive run?';

async function replay(server: RunningServer, id: string): Promise<DebateEvent[]> {
  const text = await (await server.fetch(`/sessions/${id}/events`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as DebateEvent);
}

/** What holds for every grounded run of one round: retrieval first, every answer's citations verified, all told. */
async function expectGrounded(server: RunningServer, sessionId: string, told: Grounding | undefined): Promise<Session> {
  const session = (await (await server.fetch(`/sessions/${sessionId}`)).json()) as Session;
  const g = session.grounding!;
  expect(told).toEqual(g);
  expect(g).toMatchObject({ source: 'team-wiki', status: 'complete', unverifiedCitations: 0 });
  expect(g.pages.map((p) => p.title).sort()).toEqual(Object.keys(PAGES).sort());
  const answers = session.rounds.flatMap((r) => r.answers);
  expect(answers.length).toBeGreaterThan(0);
  // Every stand-in cites a retrieved page by number, quoting it: all verified.
  for (const a of answers) expect(a.text).toMatch(/\[[12]\]/);
  expect(g.verifiedCitations).toBeGreaterThanOrEqual(answers.length);
  // The retrieval only: no tools outside a deep debate's critique rounds.
  expect(g.lookups.map((l) => l.tool)).toEqual(['retrieve']);
  const events = await replay(server, sessionId);
  const grounding = events.filter((e): e is Extract<DebateEvent, { type: 'grounding' }> => e.type === 'grounding');
  const round = events.find((e) => e.type === 'round.started')!;
  expect(grounding[0]!.seq).toBeLessThan(round.seq);
  // The checked citations are told before the session ends: the replay shows what is stored, each text once.
  expect(grounding.at(-1)!.grounding).toEqual({ ...g, pages: g.pages.map(({ text: _, ...p }) => p) });
  expect(grounding[0]!.grounding.pages).toEqual(g.pages);
  expect(events.at(-1)!.type).toBe('session.ended');
  return session;
}

describe.skipIf(!mediawiki.available)('single and parallel runs grounded in a live MediaWiki', () => {
  let server: RunningServer;

  beforeAll(async () => {
    const wiki = await startMediaWiki();
    await seedPages(PAGES);
    server = await startServer({ CONSILIUM_WIKIS: JSON.stringify({ 'team-wiki': { api: wiki.api, pages: 2 } }) });
  }, 180_000);
  afterAll(async () => {
    await server?.close();
  });

  const post = (path: string, body: object) =>
    server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('parallel: every model gets the same sources before answering; citations checked; sources recorded', async () => {
    const res = await post('/consilium', { question: QUESTION, grounding: { source: 'team-wiki' } });
    expect(res.status).toBe(200);
    const result = (await res.json()) as ParallelResult;
    expect(result.answers).toHaveLength(5);
    await expectGrounded(server, result.sessionId, result.grounding);
  });

  it('single: the one model gets the sources before answering; citations checked; sources recorded', async () => {
    const providers = (await (await server.fetch('/providers')).json()) as { slots: { provider: string }[] };
    const res = await post(`/ask/${providers.slots[0]!.provider}`, { question: QUESTION, grounding: { source: 'team-wiki' } });
    expect(res.status).toBe(200);
    const result = (await res.json()) as AskResult;
    expect(result.answer.text).toMatch(/\[[12]\]/);
    await expectGrounded(server, result.sessionId, result.grounding);
  });

  it('without a source nothing is read; an unknown source is refused with a problem', async () => {
    const plain = (await (await post('/consilium', { question: QUESTION, slots: [1] })).json()) as ParallelResult;
    expect(plain.grounding).toBeUndefined();
    for (const path of ['/consilium', '/ask/anthropic']) {
      const res = await post(path, { question: QUESTION, grounding: { source: 'nope' } });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'unknown_wiki_source' });
    }
  });

  it('the SDK facade and the CLI (`ask --wiki`, `parallel --wiki`) ground them; the CLI prints the sources', async () => {
    const consilium = new Consilium({ baseUrl: server.baseUrl, token: server.token });
    const asked = await consilium.ask(QUESTION, { grounding: { source: 'team-wiki' } });
    expect(asked.grounding).toMatchObject({ source: 'team-wiki', status: 'complete', unverifiedCitations: 0 });
    const parallel = await consilium.debates.parallel(QUESTION, { slots: [1, 2], grounding: { source: 'team-wiki' } });
    expect(parallel.grounding).toMatchObject({ source: 'team-wiki', status: 'complete', unverifiedCitations: 0 });

    const root = fileURLToPath(new URL('../../', import.meta.url));
    const cli = (args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ['--import', 'tsx', 'sdk/src/cli/bin.ts', ...args, '--wiki', 'team-wiki', '--no-color'],
          {
            cwd: root,
            env: { PATH: process.env.PATH, HOME: root, CONSILIUM_URL: server.baseUrl, CONSILIUM_TOKEN: server.token },
          },
          (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
        ),
      );
    for (const out of await Promise.all([cli(['ask', QUESTION]), cli(['parallel', QUESTION, '--slots', '1,2'])])) {
      const at = out.indexOf('Sources · team-wiki · grounding complete');
      expect(at).toBeGreaterThan(0);
      for (const title of Object.keys(PAGES)) expect(out.slice(at)).toMatch(new RegExp(`\\[\\d\\] ${title}  http://`));
    }
  });
});

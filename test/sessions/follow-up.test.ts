/**
 * Follow-up questions and early stops over HTTP, against the real app with offline models: a
 * thread grows by follow-ups in each mode, the panel's prompts carry it, history, export, replay
 * and resume work across it; a synthesis records its source; `earlyStop` skips to the final round.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type createConsiliumClient,
  type DebateEvent,
  getSessionThread,
  type Session,
  synthesizeVerdict,
} from '../../sdk/src/index.js';
import { askFollowUp, runDeepDebate, runParallel } from '../support/attached.js';
import { type RunningServer, startServer } from '../support/server.js';
import { readSse } from '../support/sse.js';

let server: RunningServer;
let client: ReturnType<typeof createConsiliumClient>;

beforeAll(async () => {
  server = await startServer();
  client = server.client;
});
afterAll(() => server.close());

async function replay(id: string, lastEventId?: number): Promise<DebateEvent[]> {
  const res = await server.fetch(`/sessions/${id}/events`, {
    headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
  });
  const events: DebateEvent[] = [];
  for await (const m of readSse(res)) events.push(JSON.parse(m.data) as DebateEvent);
  return events;
}

describe('follow-up questions', () => {
  it('grow a thread in every mode; the panel sees it; history, export, replay and resume work across it', async () => {
    const { data: first } = await runDeepDebate({
      client,
      body: { question: 'Postgres or SQLite for a small SaaS?', rounds: 2 },
    });
    expect(first!.threadId).toBeUndefined();

    const deep = await askFollowUp({
      client,
      path: { sessionId: first!.id },
      body: { question: 'And how would we migrate later?', rounds: 2 },
    });
    expect(deep.response.status).toBe(200);
    const second = deep.data!;
    expect(second).toMatchObject({ mode: 'deep', status: 'completed', threadId: first!.id, parentId: first!.id });
    // The panel saw the earlier exchange: the stand-ins say what they were given.
    for (const answer of second.rounds[0]!.answers) expect(answer.text).toContain('the earlier exchange of this thread');

    const { data: third } = await askFollowUp({
      client,
      path: { sessionId: second.id },
      body: { question: 'Which one costs less to run?', mode: 'parallel', slots: [2, 4] },
    });
    expect(third).toMatchObject({ mode: 'parallel', threadId: first!.id, parentId: second.id });
    expect(third!.rounds[0]!.answers.map((a) => a.slot)).toEqual([2, 4]);
    for (const answer of third!.rounds[0]!.answers) expect(answer.text).toContain('the 2 earlier exchanges of this thread');

    const { data: fourth } = await askFollowUp({
      client,
      path: { sessionId: third!.id },
      body: { question: 'One word?', mode: 'single', provider: 'xai' },
    });
    expect(fourth).toMatchObject({ mode: 'single', threadId: first!.id, parentId: third!.id });
    expect(fourth!.rounds[0]!.answers[0]).toMatchObject({ slot: 5, provider: 'xai' });

    // History: the thread from any of its sessions, oldest first; the root now says it starts one.
    const ids = [first!.id, second.id, third!.id, fourth!.id];
    for (const id of [first!.id, third!.id]) {
      const { data: thread } = await getSessionThread({ client, path: { sessionId: id } });
      expect(thread!.threadId).toBe(first!.id);
      expect(thread!.sessions.map((s) => s.id)).toEqual(ids);
    }
    const root = (await (await server.fetch(`/sessions/${first!.id}`)).json()) as Session;
    expect(root.threadId).toBe(first!.id);
    const listed = (await (await server.fetch(`/sessions?limit=10`)).json()) as { items: Session[] };
    expect(listed.items.find((s) => s.id === third!.id)).toMatchObject({ threadId: first!.id, parentId: second.id });

    // Export: a follow-up's Markdown carries the thread up to it.
    const markdown = await (await server.fetch(`/sessions/${third!.id}/export/markdown`)).text();
    const at = (text: string) => markdown.indexOf(text);
    expect(at('# Postgres or SQLite for a small SaaS?')).toBeGreaterThan(-1);
    expect(at('# And how would we migrate later?')).toBeGreaterThan(at('# Postgres or SQLite for a small SaaS?'));
    expect(at('# Which one costs less to run?')).toBeGreaterThan(at('# And how would we migrate later?'));
    expect(markdown).not.toContain('One word?');
    expect(markdown).toContain(`- Follows up: \`${second.id}\``);
    // What came after is named, not included: the root's export says the thread went on.
    expect(markdown).toContain(`_Followed up later in this thread: \`${fourth!.id}\`.`);
    const rootMarkdown = await (await server.fetch(`/sessions/${first!.id}/export/markdown`)).text();
    expect(rootMarkdown).toContain(`_Followed up later in this thread: \`${second.id}\`, \`${third!.id}\`, \`${fourth!.id}\`.`);
    expect(rootMarkdown).not.toContain('# And how would we migrate later?');
    const lastMarkdown = await (await server.fetch(`/sessions/${fourth!.id}/export/markdown`)).text();
    expect(lastMarkdown).not.toContain('Followed up later');

    // Replay and resume: each session of the thread replays whole and resumes after any id.
    for (const s of [first!, second]) {
      const events = await replay(s.id);
      expect(events[0]).toMatchObject({ type: 'session.started', sessionId: s.id });
      expect(events.at(-1)).toMatchObject({ type: 'session.ended', status: 'completed' });
      const middle = events[Math.floor(events.length / 2)]!.seq;
      expect(await replay(s.id, middle)).toStrictEqual(events.filter((e) => e.seq > middle));
    }
  });

  it('refuses a follow-up on an unknown session (404) and an unknown provider (404)', async () => {
    const missing = await askFollowUp({ client, path: { sessionId: 'ses_0000000000000000' }, body: { question: 'Hm?' } });
    expect(missing.response.status).toBe(404);
    const { data: s } = await runParallel({ client, body: { question: 'A?' } });
    const bad = await askFollowUp({
      client,
      path: { sessionId: s!.sessionId },
      body: { question: 'B?', mode: 'single', provider: 'nobody' },
    });
    expect(bad.response.status).toBe(404);
    expect((bad.error as { code: string }).code).toBe('unknown_provider');
  });

  it('refuses a follow-up on a session still running (409)', async () => {
    const paced = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '20' });
    try {
      const c = paced.client;
      const res = await paced.fetch(`/consilium/deep/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'Slow?', rounds: 2 }),
      });
      const messages = readSse(res)[Symbol.asyncIterator]();
      const first = (await messages.next()).value!;
      const id = (JSON.parse(first.data) as DebateEvent).sessionId;
      await expect.poll(async () => (await paced.fetch(`/sessions/${id}`)).status).toBe(200);
      const early = await askFollowUp({ client: c, path: { sessionId: id }, body: { question: 'Done yet?' } });
      expect(early.response.status).toBe(409);
      expect((early.error as { code: string }).code).toBe('conflict');
      await messages.return(undefined);
    } finally {
      await paced.close();
    }
  });

  it('a synthesis from a session records its source', async () => {
    const { data: s } = await runParallel({ client, body: { question: 'Tabs or spaces?' } });
    const { data: synthesis } = await synthesizeVerdict({ client, body: { sessionId: s!.sessionId } });
    const stored = (await (await server.fetch(`/sessions/${synthesis!.sessionId}`)).json()) as Session;
    expect(stored).toMatchObject({ mode: 'synthesis', sourceSessionId: s!.sessionId });
  });
});

describe('early stop', () => {
  it('goes straight to the final round when every model holds its position, and records what it saved', async () => {
    const { data: s } = await runDeepDebate({ client, body: { question: 'Rewrite or refactor?', rounds: 5, earlyStop: true } });
    // Round 2 is a critique round in which every stand-in reports "POSITION: unchanged".
    expect(s!.rounds.map((r) => [r.number, r.kind])).toEqual([
      [1, 'independent'],
      [2, 'critique'],
      [3, 'final'],
    ]);
    const round2 = s!.rounds[1]!;
    expect(s!.earlyStop).toEqual({
      afterRound: 2,
      roundsSaved: 2,
      callsSaved: 10,
      tokensSaved: 2 * round2.answers.reduce((sum, a) => sum + a.usage.totalTokens, 0),
    });
    expect(s!.status).toBe('completed');
    expect(s!.consensus?.round).toBe(3);
    const stored = (await (await server.fetch(`/sessions/${s!.id}`)).json()) as Session;
    expect(stored.earlyStop).toEqual(s!.earlyStop);
    const markdown = await (await server.fetch(`/sessions/${s!.id}/export/markdown`)).text();
    expect(markdown).toContain('- Stopped early: every model held its position in round 2');
  });

  it('runs every round when not asked to, or when a model changed its position', async () => {
    const { data: s } = await runDeepDebate({ client, body: { question: 'Rewrite or refactor?', rounds: 4 } });
    expect(s!.rounds).toHaveLength(4);
    expect(s!.earlyStop).toBeUndefined();
    for (const a of s!.rounds[1]!.answers) expect(a.text).not.toContain('POSITION:');
  });
});

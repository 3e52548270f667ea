/**
 * The tools that run models, called with the official MCP client over Streamable HTTP against a real server (offline
 * models, real SQLite): each returns its structured outcome, stored in the caller's history like any session;
 * `consult` reports progress per round, and a client's cancellation cancels the debate; bad arguments and refused
 * runs are tool errors naming the field.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../sdk/src/generated/types.gen.js';
import { connectMcp, textOf } from '../../../test/support/mcp.js';
import { type RunningServer, startServer } from '../../../test/support/server.js';
import type { Outcome } from './outcome.js';

let server: RunningServer;
let client: Client;
beforeAll(async () => {
  server = await startServer();
  client = await connectMcp(server.baseUrl, server.token);
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const call = async (name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  return { result, outcome: result.structuredContent as Outcome | undefined, text: textOf(result) };
};
const stored = async (id: string) => (await (await server.fetch(`/sessions/${id}`)).json()) as Session;

describe('consult', () => {
  it('runs a deep debate in the caller’s history, reporting each round as progress', async () => {
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'consult', arguments: { question: 'Monolith or services?', rounds: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(result.isError).toBeFalsy();
    const outcome = result.structuredContent as Outcome;
    expect(outcome).toMatchObject({ status: 'completed', mode: 'deep', missingSlots: [] });
    expect(outcome.link).toBe(`${server.baseUrl}/#/sessions/${outcome.sessionId}`);
    expect(outcome.verdict).toBeDefined();
    expect(outcome.actions).toEqual({ P0: expect.any(Array), P1: expect.any(Array), P2: expect.any(Array) });
    expect(outcome.cost).toEqual({ usd: 0, priced: true });
    expect(outcome.answers.map((a) => a.slot)).toEqual([1, 2, 3, 4, 5]);
    expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([
      [0, 4, `session ${outcome.sessionId} started`],
      [1, 4, 'round 1 of 3 ended'],
      [2, 4, 'round 2 of 3 ended'],
      [3, 4, 'round 3 of 3 ended'],
      [4, 4, 'verdict written'],
    ]);
    const session = await stored(outcome.sessionId);
    expect(session).toMatchObject({
      owner: server.user.id,
      mode: 'deep',
      question: 'Monolith or services?',
      status: 'completed',
    });
    expect(session.rounds).toHaveLength(3);
    expect(textOf(result)).toContain(outcome.link);
  });

  it('refuses bad arguments as a tool error naming each field and why, starting nothing', async () => {
    const before = (await (await server.fetch('/sessions')).json()) as { items: unknown[] };
    const { result, text } = await call('consult', { question: 'x', rounds: 9, detach: true });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/rounds/);
    expect(text).toMatch(/<=5/);
    expect(text).toMatch(/Unrecognized key: "detach"/);
    const missing = await call('consult', { rounds: 2 });
    expect(missing.result.isError).toBe(true);
    expect(missing.text).toMatch(/question/);
    // What the runs refuse (a panel the configuration cannot give) is a tool error too, its fields named as in the tool.
    const panel = await call('consult', { question: 'x', slots: [1, 1] });
    expect(panel.result.isError).toBe(true);
    expect(panel.text).toMatch(/^validation_failed: /);
    expect(panel.text).toMatch(/\n- slots: A debate needs at least two distinct slots\./);
    const source = await call('consult', { question: 'x', grounding: { source: 'nowhere' } });
    expect(source.text).toMatch(/^unknown_wiki_source: No wiki source is named "nowhere"/);
    const after = (await (await server.fetch('/sessions')).json()) as { items: unknown[] };
    expect(after.items).toHaveLength(before.items.length);
  });
});

describe('ask, parallel, synthesize, continue_session', () => {
  it('ask: one model, the slot asked for', async () => {
    const { outcome } = await call('ask', { question: 'What is 2 + 2?', slot: 2 });
    expect(outcome).toMatchObject({ mode: 'single', status: 'completed' });
    expect(outcome!.answers.map((a) => a.slot)).toEqual([2]);
    expect(outcome!.verdict).toBeUndefined();
    const both = await call('ask', { question: 'x', slot: 2, provider: 'openai' });
    expect(both.result.isError).toBe(true);
    expect(both.text).toMatch(/- provider: not with slot/);
    const unknown = await call('ask', { question: 'x', provider: 'nobody' });
    expect(unknown.text).toMatch(/^unknown_provider: /);
  });

  it('parallel: the slots asked for, side by side', async () => {
    const { outcome } = await call('parallel', { question: 'Tabs or spaces?', slots: [1, 3] });
    expect(outcome).toMatchObject({ mode: 'parallel', status: 'completed' });
    expect(outcome!.answers.map((a) => a.slot)).toEqual([1, 3]);
  });

  it('synthesize: a verdict from a stored session’s answers', async () => {
    const source = await call('parallel', { question: 'Rust or Go?' });
    const { outcome } = await call('synthesize', { sessionId: source.outcome!.sessionId });
    expect(outcome).toMatchObject({ mode: 'synthesis', status: 'completed' });
    expect(outcome!.verdict).toBeDefined();
    expect((await stored(outcome!.sessionId)).sourceSessionId).toBe(source.outcome!.sessionId);
    const neither = await call('synthesize', {});
    expect(neither.text).toMatch(/^validation_failed: Give either `sessionId`/);
  });

  it('continue_session: a follow-up in the thread with a question; without one, only an interrupted session', async () => {
    const first = await call('consult', { question: 'Postgres or SQLite?', rounds: 2 });
    const { outcome } = await call('continue_session', { sessionId: first.outcome!.sessionId, question: 'And at 10x the load?' });
    expect(outcome).toMatchObject({ mode: 'deep', status: 'completed' });
    expect(await stored(outcome!.sessionId)).toMatchObject({
      parentId: first.outcome!.sessionId,
      question: 'And at 10x the load?',
    });
    const finished = await call('continue_session', { sessionId: first.outcome!.sessionId });
    expect(finished.result.isError).toBe(true);
    expect(finished.text).toMatch(/^conflict: /);
    const stray = await call('continue_session', { sessionId: first.outcome!.sessionId, rounds: 2 });
    expect(stray.text).toMatch(/- rounds: needs question/);
    const other = await server.newUser();
    const theirs = await connectMcp(server.baseUrl, other.token);
    const refused = await theirs.callTool({
      name: 'continue_session',
      arguments: { sessionId: first.outcome!.sessionId, question: 'Mine now?' },
    });
    expect(textOf(refused)).toMatch(/^not_found: /);
    await theirs.close();
  });
});

describe('cancellation', () => {
  it('a client’s cancellation stops the debate: the session ends cancelled', async () => {
    // Slow offline models, so the debate is still in its first round when the cancellation arrives.
    const slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '5' });
    const mcp = await connectMcp(slow.baseUrl, slow.token);
    try {
      const abort = new AbortController();
      let sessionId: string | undefined;
      const called = mcp.callTool({ name: 'consult', arguments: { question: 'Cancel me?', rounds: 5 } }, undefined, {
        signal: abort.signal,
        onprogress: (p) => {
          sessionId = /session (ses_\w+) started/.exec(p.message ?? '')?.[1];
          if (sessionId) abort.abort('the user changed their mind');
        },
      });
      await expect(called).rejects.toThrow();
      expect(sessionId).toBeDefined();
      // The session's own stream ends with its end: wait for it, then read how it ended.
      const events = await slow.fetch(`/sessions/${sessionId}/events`);
      const text = await events.text();
      expect(text).toMatch(/event: session\.ended/);
      const session = (await (await slow.fetch(`/sessions/${sessionId}`)).json()) as Session;
      expect(session.status).toBe('cancelled');
      expect(session.rounds.length).toBeLessThan(5);
    } finally {
      await mcp.close();
      await slow.close();
    }
  });
});

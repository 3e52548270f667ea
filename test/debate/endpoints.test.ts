/**
 * The five debate operations through the generated SDK against the real server on loopback, with
 * the built-in offline models (no keys): what each returns, that it is labelled offline, that the
 * stream's events tell the same story as the stored session, and the errors each can give.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type createConsiliumClient,
  type DebateEvent,
  schemas,
  streamDeepDebate,
  streamSessionEvents,
  synthesizeVerdict,
} from '../../sdk/src/index.js';
import { PROMPT_VERSION } from '../../server/src/debate/prompts.js';
import { askProvider, runDeepDebate, runParallel } from '../support/attached.js';
import { type RunningServer, startServer } from '../support/server.js';

let server: RunningServer;
let client: ReturnType<typeof createConsiliumClient>;

beforeAll(async () => {
  server = await startServer();
  client = server.client;
});
afterAll(() => server.close());

const SLOTS = [1, 2, 3, 4, 5];

describe('POST /ask/{provider}', () => {
  it('answers with the slot of that provider, labelled offline, with usage', async () => {
    const { data, error, response } = await askProvider({
      client,
      path: { provider: 'deepseek' },
      body: { question: 'Is SQLite enough for us?' },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data!.sessionId).toMatch(/^ses_[0-9A-Z]{26}$/);
    expect(data!.answer).toMatchObject({
      slot: 3,
      provider: 'deepseek',
      model: 'offline-deepseek',
      offline: true,
      round: 1,
      finishReason: 'stop',
    });
    expect(data!.answer.text.length).toBeGreaterThan(20);
    expect(data!.answer.usage.outputTokens).toBeGreaterThan(0);
    expect(data!.answer.usage.totalTokens).toBe(data!.answer.usage.inputTokens + data!.answer.usage.outputTokens);
    expect(data!.answer.error).toBeUndefined();
  });

  it('is deterministic offline: the same question gets the same text', async () => {
    const ask = () => askProvider({ client, path: { provider: 'xai' }, body: { question: 'Same question?' } });
    const [a, b] = await Promise.all([ask(), ask()]);
    expect(a.data!.answer.text).toBe(b.data!.answer.text);
    expect(a.data!.sessionId).not.toBe(b.data!.sessionId);
  });

  it('answers 404 unknown_provider, naming the configured ones, for a provider no slot has', async () => {
    const { error, response } = await askProvider({ client, path: { provider: 'mistral' }, body: { question: 'Hello?' } });
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ code: 'unknown_provider', status: 404 });
    expect(error!.detail).toContain('anthropic, openai, deepseek, google, xai');
  });
});

describe('POST /consilium', () => {
  it('asks all five at once: one answer per slot, completed, usage summed', async () => {
    const { data, error } = await runParallel({ client, body: { question: 'Monorepo or many repos?' } });
    expect(error).toBeUndefined();
    expect(data!.status).toBe('completed');
    expect(data!.answers.map((a) => a.slot)).toEqual(SLOTS);
    expect(data!.answers.every((a) => a.offline && a.round === 1 && !a.error)).toBe(true);
    expect(data!.missingSlots).toEqual([]);
    expect(data!.usage.totalTokens).toBe(data!.answers.reduce((n, a) => n + a.usage.totalTokens, 0));
    // The offline stand-in asks no model: its cost is exactly 0, not a lower bound.
    expect(data!.cost).toEqual({ usd: 0, priced: true });
  });

  it('asks only the slots named, each once', async () => {
    const { data } = await runParallel({ client, body: { question: 'Tabs?', slots: [4, 2, 4] } });
    expect(data!.answers.map((a) => a.slot)).toEqual([2, 4]);
  });
});

describe('POST /consilium/deep', () => {
  it('runs the rounds, reports the consensus and a structured verdict with provenance', async () => {
    const { data: s, error } = await runDeepDebate({
      client,
      body: { question: 'Should we rewrite the billing service?', rounds: 3 },
    });
    expect(error).toBeUndefined();
    expect(schemas.zSession.safeParse(s).success).toBe(true);
    expect(s!).toMatchObject({ mode: 'deep', roundsRequested: 3, status: 'completed', missingSlots: [], owner: server.user.id });
    expect(s!.promptVersion).toBe(PROMPT_VERSION);
    expect(s!.rounds.map((r) => [r.number, r.kind, r.answers.map((a) => a.slot)])).toEqual([
      [1, 'independent', SLOTS],
      [2, 'critique', SLOTS],
      [3, 'final', SLOTS],
    ]);
    expect(s!.consensus!.round).toBe(3);
    for (const a of s!.consensus!.agreements) expect(a.slots.every((n) => SLOTS.includes(n))).toBe(true);

    const v = s!.verdict!;
    expect(v.format).toBe('structured');
    expect(v.synthesizer).toEqual({
      slot: 1,
      provider: 'anthropic',
      model: 'offline-anthropic',
      reason: 'default',
      participated: true,
    });
    expect(v.degradation).toEqual({ degraded: false, missingSlots: [], reasons: [] });
    expect(v.positionChanges.map((p) => [p.slot, p.round])).toEqual(SLOTS.map((n) => [n, 3]));
    for (const p of v.positionChanges) expect(p.reason).not.toMatch(/\n/);
    const actions = [...v.actions!.P0, ...v.actions!.P1, ...v.actions!.P2];
    for (const action of actions) {
      expect(action.supportingSlots.every((n) => SLOTS.includes(n))).toBe(true);
      expect(action.supportingRounds.every((n) => n >= 1 && n <= 3)).toBe(true);
    }
    // Totals are the sum of every answer plus the synthesis.
    const answered = s!.rounds.flatMap((r) => r.answers).reduce((n, a) => n + a.usage.totalTokens, 0);
    expect(s!.usage.totalTokens).toBeGreaterThan(answered);
  });

  it('with rounds=2, round 2 is the final round (critique and consensus at once)', async () => {
    const { data: s } = await runDeepDebate({ client, body: { question: 'Is a hot dog a sandwich?', rounds: 2 } });
    expect(s!.rounds.map((r) => r.kind)).toEqual(['independent', 'final']);
    expect(s!.consensus!.round).toBe(2);
  });

  it('stops cleanly at the budget: partial, no further round, no verdict', async () => {
    const { data: s } = await runDeepDebate({
      client,
      body: { question: 'How far can we go?', rounds: 5, budget: { maxTokens: 600 } },
    });
    expect(s!.status).toBe('partial');
    expect(s!.usage.totalTokens).toBeGreaterThanOrEqual(600);
    expect(s!.rounds).toHaveLength(1);
    expect(s!.verdict).toBeUndefined();
  });

  it('cuts off the calls still running when the budget is reached, naming them budget_exceeded', async () => {
    // Paced offline models: the fast slots finish and spend the budget while the slow ones still stream.
    const paced = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '3' });
    try {
      const c = paced.client;
      const { data: s } = await runDeepDebate({
        client: c,
        body: { question: 'How far can we go?', rounds: 3, budget: { maxTokens: 350 } },
      });
      expect(s!.status).toBe('partial');
      const failed = s!.rounds.flatMap((r) => r.answers).filter((a) => a.error);
      expect(failed.length).toBeGreaterThan(0);
      for (const a of failed) expect(a.error!.code).toBe('budget_exceeded');
      expect(s!.missingSlots).toEqual([...new Set(failed.map((a) => a.slot))].sort());
      // What a cut-off model had already said is kept.
      expect(failed.some((a) => a.text.length > 0)).toBe(true);
    } finally {
      await paced.close();
    }
  });
});

describe('POST /consilium/deep/stream', () => {
  it('streams every event in order, each validated, telling the same story as the session', async () => {
    const events: DebateEvent[] = [];
    const { stream } = await streamDeepDebate({ client, body: { question: 'Kafka or a database queue?', rounds: 2 } });
    for await (const event of stream) events.push(event);

    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.sessionId)).size).toBe(1);
    const kinds = events.map((e) => e.type).filter((t) => t !== 'answer.delta' && t !== 'verdict.delta');
    expect(kinds[0]).toBe('session.started');
    expect(kinds.slice(-5)).toEqual(['consensus', 'synthesis.started', 'verdict', 'integrity', 'session.ended']);
    expect(kinds.filter((k) => k === 'round.started')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'answer.completed')).toHaveLength(10);

    // Token-level: every model's deltas, in every round, add up to its completed answer.
    for (const completed of events.filter((e) => e.type === 'answer.completed')) {
      const { slot, round, text } = completed.answer;
      const deltas = events.filter((e) => e.type === 'answer.delta' && e.slot === slot && e.round === round);
      expect(deltas.length, `round ${round} slot ${slot}`).toBeGreaterThan(1);
      expect(deltas.map((d) => (d.type === 'answer.delta' ? d.delta : '')).join('')).toBe(text);
      // A delta comes before its answer is complete.
      expect(Math.max(...deltas.map((d) => d.seq))).toBeLessThan(completed.seq);
    }
    const ended = events.at(-1)!;
    expect(ended).toMatchObject({ type: 'session.ended', status: 'completed', missingSlots: [] });

    // The verdict streams as it is written: its deltas, between synthesis.started and the verdict,
    // add up to its summary and answer.
    const started = events.find((e) => e.type === 'synthesis.started')!;
    const verdict = events.find((e) => e.type === 'verdict')!;
    const verdictDeltas = events.flatMap((e) => (e.type === 'verdict.delta' ? [e] : []));
    expect(verdictDeltas.length).toBeGreaterThan(2);
    for (const d of verdictDeltas) {
      expect(d.seq).toBeGreaterThan(started.seq);
      expect(d.seq).toBeLessThan(verdict.seq);
      expect(d).toMatchObject({ slot: 1, attempt: 1 });
    }
    const text = (field: string) =>
      verdictDeltas
        .filter((d) => d.field === field)
        .map((d) => d.delta)
        .join('');
    if (verdict.type !== 'verdict' || verdict.verdict.format !== 'structured') throw new Error('no structured verdict');
    expect(text('summary')).toBe(verdict.verdict.summary);
    expect(text('answer')).toBe(verdict.verdict.answer);

    // Replay holds the same events, verdict deltas included.
    const { stream: replay } = await streamSessionEvents({ client, path: { sessionId: ended.sessionId } });
    const replayed: DebateEvent[] = [];
    for await (const event of replay) replayed.push(event);
    expect(replayed).toStrictEqual(events);
  });

  it('sends each event with its seq as the SSE id and answers as text/event-stream', async () => {
    const res = await server.fetch(`/consilium/deep/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Short?', rounds: 2 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = (await res.text()).split('\n\n').filter((m) => m.trim() !== '');
    for (const message of messages) {
      const id = /^id: (\d+)$/m.exec(message)?.[1];
      const data = /^data: (.*)$/m.exec(message)?.[1];
      expect(JSON.parse(data!).seq).toBe(Number(id));
    }
  });
  it('keeps a quiet stream alive with heartbeat comments', async () => {
    const slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '20', CONSILIUM_SSE_HEARTBEAT_MS: '20' });
    try {
      const cancel = new AbortController();
      const res = await slow.fetch(`/consilium/deep/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'Quiet?', rounds: 2 }),
        signal: cancel.signal,
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      // Before the first token (hundreds of ms at this pace) only heartbeats can arrive.
      while (!/^: heartbeat$/m.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      cancel.abort();
      expect(text).toMatch(/^: heartbeat$/m);
    } finally {
      await slow.close();
    }
  });
});

describe('POST /synthesize', () => {
  it('writes a verdict from given answers, with slot 1 as synthesizer', async () => {
    const { data, error } = await synthesizeVerdict({
      client,
      body: {
        question: 'Adopt trunk-based development?',
        answers: [
          { slot: 2, text: 'Yes, with feature flags.' },
          { slot: 3, round: 1, text: 'Only with mandatory review.' },
        ],
      },
    });
    expect(error).toBeUndefined();
    expect(data!.verdict.format).toBe('structured');
    expect(data!.verdict.synthesizer).toMatchObject({ slot: 1, reason: 'default', participated: false });
    expect(data!.usage.totalTokens).toBeGreaterThan(0);
  });

  it('writes a verdict from a stored session', async () => {
    const { data: s } = await runParallel({ client, body: { question: 'Rust or Go?' } });
    const { data, error } = await synthesizeVerdict({ client, body: { sessionId: s!.sessionId } });
    expect(error).toBeUndefined();
    expect(data!.sessionId).not.toBe(s!.sessionId);
    expect(data!.verdict.synthesizer.participated).toBe(true);
  });

  it('refuses neither or both of sessionId and answers, and an unknown session', async () => {
    const none = await synthesizeVerdict({ client, body: {} });
    expect(none.response.status).toBe(400);
    expect(none.error).toMatchObject({ code: 'validation_failed' });
    const both = await synthesizeVerdict({
      client,
      body: { sessionId: 'ses_01M80YFWXVJZJS70E42W7PHDXP', question: 'q', answers: [{ slot: 1, text: 't' }] },
    });
    expect(both.response.status).toBe(400);
    const unknown = await synthesizeVerdict({ client, body: { sessionId: 'ses_01M80YFWXVJZJS70E42W7PHDXP' } });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error).toMatchObject({ code: 'not_found' });
  });
});

describe('the offline default', () => {
  it('says it is a stand-in, carries no judgement-like numbers, and its export names the offline slots', async () => {
    const { data: s } = await runDeepDebate({ client, body: { question: 'Monorepo or many repos?', rounds: 3 } });
    for (const answer of s!.rounds.flatMap((r) => r.answers)) {
      expect(answer.offline).toBe(true);
      expect(answer.text).toMatch(/^\[Offline stand-in for slot \d \(\w+\): no (model was asked|position)/);
      expect(answer.text).toContain(`Round ${answer.round}`);
    }
    const verdict = s!.verdict!;
    expect(verdict.confidence).toBeUndefined();
    expect(verdict.actions).toEqual({ P0: [], P1: [], P2: [] });
    expect(verdict.summary).toMatch(/^No verdict: the synthesizer, slot 1 \(anthropic\), is an offline stand-in/);
    expect(s!.consensus).toMatchObject({ agreements: [], disagreements: [] });

    const res = await server.fetch(`/sessions/${s!.id}/export/markdown`);
    const markdown = await res.text();
    expect(markdown).toContain(
      '- Offline: slot 1, slot 2, slot 3, slot 4, slot 5 answered with the built-in offline stand-in, not a model',
    );
    expect(markdown).not.toMatch(/confidence/i);
  });
});

/**
 * `createSlotModel` + `streamAnswer` against each provider's real streaming wire format, served by
 * msw at the network edge: deltas, text, usage and finish reason; 429/500/401; a stalled server; a
 * connection cut mid-stream; a caller's abort reaching the server; structured output.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { zConsensus } from '../../server/src/generated/schemas/zod.gen.js';
import { type AnswerResult, type StreamAnswerOptions, streamAnswer } from '../../server/src/providers/call.js';
import { createSlotModel } from '../../server/src/providers/models.js';
import { type Breakage, type Observed, PROVIDERS, sseResponse, stallUntilAborted, type WireProvider } from './wire.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

interface Seen {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}
type Responder = (request: Request) => Response | Promise<Response>;

/** Answers the provider's endpoint with `responders` in turn (the last one repeats) and records each request. */
function serve(p: WireProvider, ...responders: Responder[]): Seen[] {
  const seen: Seen[] = [];
  server.use(
    http.post(p.url, async ({ request }) => {
      seen.push({ url: request.url, headers: request.headers, body: (await request.clone().json()) as Record<string, unknown> });
      return responders[Math.min(seen.length, responders.length) - 1]!(request);
    }),
  );
  return seen;
}

const DELTAS = ['Ship ', 'the ', 'smaller ', 'change ', 'first.'];
const USAGE = { input: 31, output: 9 };
const PROMPT = 'Should we ship the big refactor or the smaller change?';
const SYSTEM = 'You are slot 1 of a debate; your strength is synthesis.';

const ok =
  (p: WireProvider, deltas = DELTAS, breakage?: Breakage, observed?: Observed): Responder =>
  (request) =>
    sseResponse(request, p.frames(deltas, USAGE), breakage, observed);
const fail =
  (p: WireProvider, status: number, message: string, headers: Record<string, string> = {}): Responder =>
  () =>
    HttpResponse.json(p.errorBody(status, message) as Record<string, unknown>, { status, headers });

/** The number of frames up to and including the one carrying `delta`. */
function framesThrough(p: WireProvider, delta: string): number {
  return p.frames(DELTAS, USAGE).findIndex((f) => f.includes(JSON.stringify(delta))) + 1;
}

async function ask<T = never>(
  p: WireProvider,
  extra: Partial<StreamAnswerOptions<T>> = {},
): Promise<AnswerResult<T> & { deltas: string[]; waits: number[] }> {
  const deltas: string[] = [];
  const waits: number[] = [];
  const result = await streamAnswer<T>({
    model: createSlotModel(p.slot, p.env),
    system: SYSTEM,
    prompt: PROMPT,
    timeoutMs: 5000,
    onDelta: (d) => deltas.push(d),
    // Records the wait the policy chose and returns at once, so retry tests take no time.
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  } as StreamAnswerOptions<T>);
  return { ...result, deltas, waits };
}

describe.each(PROVIDERS)('$name', (p) => {
  it('streams the deltas in order, then the text, the usage and the finish reason', async () => {
    const seen = serve(p, ok(p));
    const r = await ask(p);
    expect(r.deltas).toEqual(DELTAS);
    expect(r).toMatchObject({
      text: DELTAS.join(''),
      usage: { inputTokens: 31, outputTokens: 9, totalTokens: 40 },
      finishReason: 'stop',
      attempts: 1,
    });
    expect(r.error).toBeUndefined();
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    expect(seen).toHaveLength(1);
  });

  it('sends the key, the model, the system prompt and the question, and asks for a stream with usage', async () => {
    const seen = serve(p, ok(p));
    await ask(p);
    const [{ url, headers, body }] = seen as [Seen];
    expect(headers.get(p.auth[0])).toBe(p.auth[1]);
    const wire = JSON.stringify(body);
    expect(wire).toContain(SYSTEM);
    expect(wire).toContain(PROMPT);
    if (p.name === 'google') {
      expect(url).toContain(`/models/${p.slot.model}:streamGenerateContent?alt=sse`);
    } else {
      expect(body.model).toBe(p.slot.model);
      expect(body.stream).toBe(true);
    }
    if (url.endsWith('/chat/completions')) expect(body.stream_options).toEqual({ include_usage: true });
  });

  it(`maps the provider's "${p.lengthReason}" to finishReason length`, async () => {
    serve(p, (request) => sseResponse(request, p.frames(DELTAS, USAGE, 'length')));
    const r = await ask(p);
    expect(r.finishReason).toBe('length');
    expect(r.error).toBeUndefined();
  });

  it('retries a 429 after the Retry-After it was given, then succeeds', async () => {
    const seen = serve(p, fail(p, 429, 'Rate limit reached, slow down', { 'retry-after': '2' }), ok(p));
    const r = await ask(p);
    expect(r.waits).toEqual([2000]);
    expect(seen).toHaveLength(2);
    expect(r).toMatchObject({ text: DELTAS.join(''), finishReason: 'stop', attempts: 2 });
    expect(r.error).toBeUndefined();
  });

  it('gives up after maxRetries 429s with rate_limited, the status, the message and the attempts', async () => {
    const seen = serve(p, fail(p, 429, 'Rate limit reached, slow down', { 'retry-after-ms': '3' }));
    // The real sleep: retry-after-ms keeps it to milliseconds.
    const r = await ask(p, { maxRetries: 2, sleep: undefined });
    expect(seen).toHaveLength(3);
    expect(r.error).toEqual({
      code: 'rate_limited',
      message: 'Rate limit reached, slow down',
      status: 429,
      retryable: true,
      attempts: 3,
    });
    expect(r).toMatchObject({
      text: '',
      finishReason: 'error',
      attempts: 3,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    });
    expect(r.deltas).toEqual([]);
  });

  it('retries a 500 with exponential backoff and reports upstream_error when it persists', async () => {
    const seen = serve(p, fail(p, 500, 'The server had an error while processing your request'));
    const r = await ask(p, { maxRetries: 2, retryPolicy: { initialDelayMs: 100, factor: 3, maxDelayMs: 1000 } });
    expect(r.waits).toEqual([100, 300]);
    expect(seen).toHaveLength(3);
    expect(r.error).toMatchObject({ code: 'upstream_error', status: 500, retryable: true, attempts: 3 });
    expect(r.error?.message).toContain('The server had an error');
  });

  it('does not retry a 401, and names it auth_failed', async () => {
    const seen = serve(p, fail(p, 401, 'Invalid API key provided'));
    const r = await ask(p);
    expect(seen).toHaveLength(1);
    expect(r.waits).toEqual([]);
    expect(r.error).toEqual({
      code: 'auth_failed',
      message: 'The provider refused the API key (HTTP 401): Invalid API key provided',
      status: 401,
      retryable: false,
      attempts: 1,
    });
    expect(r.finishReason).toBe('error');
  });

  it('times out on a server that never answers, and the server sees the request aborted', async () => {
    const observed: Observed = { aborted: false };
    const seen = serve(p, (request) => stallUntilAborted(request, observed));
    const r = await ask(p, { timeoutMs: 150 });
    expect(r.error).toMatchObject({ code: 'timeout', retryable: true, attempts: 1 });
    expect(r.finishReason).toBe('error');
    expect(seen).toHaveLength(1);
    await expect.poll(() => observed.aborted).toBe(true);
  });

  it('times out on a stream that stalls mid-answer, keeping the text so far', async () => {
    const observed: Observed = { aborted: false };
    serve(p, ok(p, DELTAS, { stallAfter: framesThrough(p, DELTAS[1]!) }, observed));
    // Long enough for two deltas on a loaded machine; the stall itself is endless.
    const r = await ask(p, { timeoutMs: 1000 });
    expect(r.deltas).toEqual(DELTAS.slice(0, 2));
    expect(r).toMatchObject({ text: 'Ship the ', finishReason: 'error', error: { code: 'timeout', attempts: 1 } });
    await expect.poll(() => observed.aborted).toBe(true);
  });

  it('reports connection_reset when the connection drops mid-stream, and does not retry after deltas', async () => {
    const seen = serve(p, ok(p, DELTAS, { resetAfter: framesThrough(p, DELTAS[1]!) }), ok(p));
    const r = await ask(p);
    expect(seen).toHaveLength(1);
    expect(r.deltas).toEqual(DELTAS.slice(0, 2));
    expect(r).toMatchObject({ text: 'Ship the ', finishReason: 'error' });
    expect(r.error).toMatchObject({ code: 'connection_reset', retryable: true, attempts: 1 });
  });

  it('retries a connection dropped before the first delta', async () => {
    const seen = serve(p, ok(p, DELTAS, { resetAfter: 0 }), ok(p));
    const r = await ask(p);
    expect(seen).toHaveLength(2);
    expect(r.waits).toHaveLength(1);
    expect(r).toMatchObject({ text: DELTAS.join(''), finishReason: 'stop', attempts: 2 });
    expect(r.deltas).toEqual(DELTAS);
  });

  it("stops when the caller aborts mid-stream; the abort reaches the server's request", async () => {
    const observed: Observed = { aborted: false };
    serve(p, ok(p, DELTAS, { stallAfter: framesThrough(p, DELTAS[1]!) }, observed));
    const caller = new AbortController();
    const r = await ask(p, {
      signal: caller.signal,
      onDelta: (d) => {
        if (d === DELTAS[1]) caller.abort();
      },
    });
    expect(r).toMatchObject({
      text: 'Ship the ',
      finishReason: 'aborted',
      error: { code: 'aborted', retryable: false, attempts: 1 },
    });
    await expect.poll(() => observed.aborted).toBe(true);
  });

  it('returns the object for structured output, and the schema reaches the wire', async () => {
    const consensus = {
      round: 3,
      agreements: [{ statement: 'Ship the smaller change first.', slots: [1, 2, 4] }],
      disagreements: [{ topic: 'Timing', positions: [{ position: 'Refactor next quarter.', slots: [3, 5] }] }],
    };
    const json = JSON.stringify(consensus);
    const chunks = [json.slice(0, 20), json.slice(20, 61), json.slice(61)];
    const seen = serve(p, ok(p, chunks));
    const r = await ask(p, { output: zConsensus });
    expect(r.error).toBeUndefined();
    expect(r.object).toEqual(consensus);
    expect(r.text).toBe(json);
    expect(r.deltas.join('')).toBe(json);
    const wire = JSON.stringify(seen[0]!.body);
    expect(wire).toContain('agreements');
    expect(wire).toContain('disagreements');
  });

  it('reports invalid_output with the raw text when the JSON does not meet the schema', async () => {
    const raw = '{"round": 9, "agreements": "none"}';
    serve(p, ok(p, [raw.slice(0, 10), raw.slice(10)]));
    const r = await ask(p, { output: zConsensus });
    expect(r.object).toBeUndefined();
    expect(r.text).toBe(raw);
    expect(r).toMatchObject({ finishReason: 'stop', error: { code: 'invalid_output', retryable: true, attempts: 1 } });
  });
});

describe('errors the provider streams inside a 200 response', () => {
  const p = PROVIDERS[0]!;
  const overloaded = 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
  const withError =
    (deltas: number): Responder =>
    (request) => {
      const frames = p.frames(DELTAS, USAGE);
      const cut = deltas === 0 ? 1 : framesThrough(p, DELTAS[deltas - 1]!);
      return sseResponse(request, [...frames.slice(0, cut), overloaded]);
    };

  it("Anthropic's overloaded_error event before any text is retried", async () => {
    const seen = serve(p, withError(0), ok(p));
    const r = await ask(p);
    expect(seen).toHaveLength(2);
    expect(r).toMatchObject({ text: DELTAS.join(''), finishReason: 'stop', attempts: 2 });
  });

  it('after text it is final: upstream_error, retryable, with the text so far', async () => {
    const seen = serve(p, withError(2), ok(p));
    const r = await ask(p);
    expect(seen).toHaveLength(1);
    expect(r).toMatchObject({
      text: 'Ship the ',
      finishReason: 'error',
      error: { code: 'upstream_error', message: 'Overloaded', retryable: true, attempts: 1 },
    });
  });
});

describe('retry waits', () => {
  const p = PROVIDERS[1]!;

  it('a Retry-After beyond the policy ceiling is not waited for', async () => {
    const seen = serve(p, fail(p, 429, 'Rate limit reached', { 'retry-after': '120' }), ok(p));
    const r = await ask(p);
    expect(seen).toHaveLength(1);
    expect(r.waits).toEqual([]);
    expect(r.error).toMatchObject({ code: 'rate_limited', retryable: true, attempts: 1 });
  });

  it('an HTTP-date Retry-After is honoured', async () => {
    const at = new Date(Date.now() + 10_000).toUTCString();
    serve(p, fail(p, 503, 'Service unavailable', { 'retry-after': at }), ok(p));
    const before = Date.now();
    const r = await ask(p);
    const after = Date.now();
    expect(r.waits).toHaveLength(1);
    // An HTTP date has whole seconds; the wait is what remains until it, from the moment the answer came.
    expect(r.waits[0]).toBeGreaterThanOrEqual(Date.parse(at) - after);
    expect(r.waits[0]).toBeLessThanOrEqual(Date.parse(at) - before);
    expect(r.waits[0]).toBeGreaterThan(0);
    expect(r.attempts).toBe(2);
  });

  it('a caller abort during the wait ends the call at once as aborted', async () => {
    const seen = serve(p, fail(p, 429, 'Rate limit reached', { 'retry-after': '15' }), ok(p));
    const caller = new AbortController();
    const pending = ask(p, { signal: caller.signal, sleep: undefined });
    await expect.poll(() => seen.length).toBe(1);
    caller.abort();
    const r = await pending;
    expect(seen).toHaveLength(1);
    expect(r).toMatchObject({ finishReason: 'aborted', error: { code: 'aborted', attempts: 1 } });
  });

  it('the deadline covers the waits: a timeout during one ends the call as timeout', async () => {
    serve(p, fail(p, 429, 'Rate limit reached', { 'retry-after': '15' }), ok(p));
    const r = await ask(p, { timeoutMs: 200, sleep: undefined });
    expect(r).toMatchObject({ finishReason: 'error', error: { code: 'timeout', attempts: 1 } });
  });
});

describe('many calls, one signal', () => {
  it('one abort stops five providers streaming at once', async () => {
    const observed = PROVIDERS.slice(0, 5).map(() => ({ aborted: false }));
    PROVIDERS.slice(0, 5).forEach((p, i) => {
      serve(p, ok(p, DELTAS, { stallAfter: framesThrough(p, DELTAS[0]!) }, observed[i]));
    });
    const caller = new AbortController();
    let started = 0;
    const calls = PROVIDERS.slice(0, 5).map((p) =>
      ask(p, {
        signal: caller.signal,
        onDelta: () => {
          if (++started === 5) caller.abort();
        },
      }),
    );
    const results = await Promise.all(calls);
    for (const r of results) expect(r).toMatchObject({ text: 'Ship ', finishReason: 'aborted', error: { code: 'aborted' } });
    await expect.poll(() => observed.every((o) => o.aborted)).toBe(true);
  });
});

describe('provider warnings', () => {
  it('reach the AI_SDK_LOG_WARNINGS logger, as streamText sent them', async () => {
    const p = PROVIDERS.find((w) => w.name === 'deepseek')!;
    const logged: { provider: string; model: string; warnings: unknown[] }[] = [];
    const previous = globalThis.AI_SDK_LOG_WARNINGS;
    globalThis.AI_SDK_LOG_WARNINGS = (w) => logged.push(w);
    try {
      serve(p, ok(p, ['{"round":3,"agreements":[],"disagreements":[]}']));
      const r = await ask(p, { output: zConsensus });
      expect(r.error).toBeUndefined();
    } finally {
      globalThis.AI_SDK_LOG_WARNINGS = previous;
    }
    // DeepSeek puts the schema in the prompt instead of a response format, and says so.
    expect(logged).toEqual([
      { provider: 'deepseek.chat', model: p.slot.model, warnings: [expect.objectContaining({ type: expect.any(String) })] },
    ]);
  });
});

/**
 * A provider simulator in its own process: Chat Completions, Anthropic Messages and Gemini streaming over
 * loopback HTTP with fixed per-model latencies, JSON drawn from the schema when one is asked for. It logs every
 * call (start, first byte, end, debate tag) so `providers.ts` computes critical paths from its clock; it answers
 * `{ type: 'log' }` with the calls and `{ type: 'cpu' }` with its CPU time.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONSchema7 } from '@ai-sdk/provider';
import { sampleJson } from '../server/src/providers/offline/json-sample.js';
import { seededRng } from '../server/src/providers/offline/seeded-random.js';

/** A model's timing: ms to the first token, ms for the whole answer. */
export interface SimTiming {
  firstTokenMs: number;
  totalMs: number;
}

/** Per model id; the bench configures each slot with one of these. */
const SIM_TIMINGS: Record<string, SimTiming> = {
  'claude-sonnet-4-5': { firstTokenMs: 200, totalMs: 1200 },
  'sim-openai': { firstTokenMs: 200, totalMs: 600 },
  'sim-deepseek': { firstTokenMs: 200, totalMs: 900 },
  'sim-gemini': { firstTokenMs: 200, totalMs: 1100 },
  'sim-grok': { firstTokenMs: 200, totalMs: 1500 },
};

/** Chunks an answer is streamed in. */
const CHUNKS = 24;

export interface SimCall {
  /** `#bench-<n>` found in the prompt: which debate the call belongs to. */
  tag: string | undefined;
  wire: 'openai' | 'anthropic' | 'google';
  model: string;
  structured: boolean;
  /** Epoch ms (fractional, from `performance.timeOrigin`) when the request arrived, its first token left, its last byte left. */
  start: number;
  firstToken: number;
  end: number;
}

const nowMs = () => performance.timeOrigin + performance.now();
const WORDS = 'ship the smaller change first then measure the risk and keep the rollback cheap while the refactor waits'.split(
  ' ',
);

/** The JSON schema a request asks for, wherever its wire format puts it. */
function schemaOf(body: Record<string, unknown>): JSONSchema7 | undefined {
  const openai = (body.response_format as { json_schema?: { schema?: JSONSchema7 } } | undefined)?.json_schema?.schema;
  if (openai) return openai;
  const anthropic = (body.output_format as { schema?: JSONSchema7 } | undefined)?.schema;
  if (anthropic) return anthropic;
  const gemini = (body.generationConfig as { responseSchema?: JSONSchema7 } | undefined)?.responseSchema;
  if (gemini) return gemini;
  const config = (body.output_config as { format?: { schema?: JSONSchema7 } } | undefined)?.format?.schema;
  if (config) return config;
  // DeepSeek: `response_format: json_object`, the schema in a system message.
  if ((body.response_format as { type?: string } | undefined)?.type === 'json_object')
    return schemaInPrompt(JSON.stringify(body.messages));
  return undefined;
}

/** The JSON object after "the following schema: " in the (JSON-encoded) messages. */
function schemaInPrompt(messages: string): JSONSchema7 | undefined {
  const marker = 'following schema: ';
  const at = messages.indexOf(marker);
  if (at < 0) return undefined;
  // The messages are JSON-encoded, so the schema inside is too: decode the string it sits in first.
  const open = messages.lastIndexOf('"content":"', at) + '"content":'.length;
  const content = JSON.parse(messages.slice(open, closingQuote(messages, open + 1) + 1)) as string;
  const start = content.indexOf(marker) + marker.length;
  let depth = 0;
  for (let i = start; i < content.length; i++) {
    if (content[i] === '"') i = closingQuote(content, i + 1);
    else if (content[i] === '{') depth++;
    else if (content[i] === '}' && --depth === 0) return JSON.parse(content.slice(start, i + 1)) as JSONSchema7;
  }
  return undefined;
}

/** The index of the quote that closes a JSON string whose content starts at `from`. */
function closingQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}

function split(text: string, parts: number): string[] {
  const size = Math.ceil(text.length / parts);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Writes `pieces` as SSE frames at the model's pace: the first at `firstTokenMs`, the last at `totalMs`. */
async function pace(res: ServerResponse, call: SimCall, timing: SimTiming, frames: string[], head: string[], tail: string[]) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-request-id': `req_sim_${Math.random().toString(36).slice(2, 10)}`,
  });
  res.flushHeaders();
  await sleep(call.start + timing.firstTokenMs - nowMs());
  call.firstToken = nowMs();
  res.write(head.join('') + (frames[0] ?? ''));
  const step = (timing.totalMs - timing.firstTokenMs) / Math.max(1, frames.length - 1);
  for (let i = 1; i < frames.length; i++) {
    await sleep(call.start + timing.firstTokenMs + step * i - nowMs());
    res.write(frames[i]!);
  }
  await sleep(call.start + timing.totalMs - nowMs());
  res.end(tail.join(''));
  call.end = nowMs();
}

const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const event = (name: string, value: unknown) => `event: ${name}\ndata: ${JSON.stringify(value)}\n\n`;

function answerText(body: Record<string, unknown>, tag: string | undefined): { text: string; structured: boolean } {
  const schema = schemaOf(body);
  const rng = seededRng(`${tag}:${JSON.stringify(body).length}`);
  if (schema) return { text: JSON.stringify(slotsInRange(sampleJson(schema, rng, WORDS))), structured: true };
  const words = Array.from({ length: 120 }, () => WORDS[Math.floor(rng() * WORDS.length)]);
  return { text: `${words.join(' ')}.`, structured: false };
}

/**
 * Slot numbers within 1–5, round numbers within 1–3 and a confidence within 0–1: some providers' wire schemas drop
 * `minimum`/`maximum` (Anthropic's structured outputs do not take them), so a value drawn from the
 * wire schema may name slot 17, which a real model would not and the engine's own schema refuses.
 */
function slotsInRange(value: unknown, key = ''): unknown {
  if (typeof value === 'number' && /slots?$/i.test(key)) return ((Math.abs(Math.trunc(value)) + 4) % 5) + 1;
  if (typeof value === 'number' && /rounds?$/i.test(key)) return (Math.abs(Math.trunc(value)) % 3) + 1;
  if (typeof value === 'number' && key === 'confidence') return Math.min(1, Math.abs(value) / 100);
  if (Array.isArray(value)) return value.map((v) => slotsInRange(v, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, slotsInRange(v, k)]));
  }
  return value;
}

function openaiFrames(model: string, text: string): { head: string[]; frames: string[]; tail: string[] } {
  const base = { id: 'chatcmpl-sim', object: 'chat.completion.chunk', created: 1_767_000_000, model };
  const choice = (delta: object, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  return {
    head: [data(choice({ role: 'assistant', content: '' }))],
    frames: split(text, CHUNKS).map((content) => data(choice({ content }))),
    tail: [
      data(choice({}, 'stop')),
      data({ ...base, choices: [], usage: { prompt_tokens: 400, completion_tokens: 160, total_tokens: 560 } }),
      'data: [DONE]\n\n',
    ],
  };
}

function anthropicFrames(model: string, text: string): { head: string[]; frames: string[]; tail: string[] } {
  const message = {
    id: 'msg_sim',
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 400, output_tokens: 1 },
  };
  return {
    head: [
      event('message_start', { type: 'message_start', message }),
      event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ],
    frames: split(text, CHUNKS).map((t) =>
      event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } }),
    ),
    tail: [
      event('content_block_stop', { type: 'content_block_stop', index: 0 }),
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 160 },
      }),
      event('message_stop', { type: 'message_stop' }),
    ],
  };
}

/** Gemini `GenerateContentResponse` frames, CRLF-terminated as Google sends them, usage on each. */
function googleFrames(model: string, text: string): { head: string[]; frames: string[]; tail: string[] } {
  const frame = (value: unknown) => `data: ${JSON.stringify(value)}\r\n\r\n`;
  const meta = { modelVersion: model, responseId: 'resp-sim' };
  const chunk = (
    text: string,
    finishReason?: string,
    usage: Record<string, number> = { promptTokenCount: 400, totalTokenCount: 400 },
  ) =>
    frame({
      candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0, ...(finishReason && { finishReason }) }],
      usageMetadata: usage,
      ...meta,
    });
  return {
    head: [],
    frames: split(text, CHUNKS).map((t) => chunk(t)),
    tail: [chunk('', 'STOP', { promptTokenCount: 400, candidatesTokenCount: 160, totalTokenCount: 560 })],
  };
}

function startSimulator(port = 0, host = '127.0.0.1') {
  const calls: SimCall[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const start = nowMs();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = req.url ?? '';
    const gemini = /\/models\/([^/:]+):streamGenerateContent\?alt=sse$/.exec(url);
    const wire = url.endsWith('/chat/completions')
      ? 'openai'
      : url.endsWith('/messages')
        ? 'anthropic'
        : gemini
          ? 'google'
          : undefined;
    if (req.method !== 'POST' || wire === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = JSON.parse(raw) as Record<string, unknown>;
    const model = gemini ? decodeURIComponent(gemini[1]!) : String(body.model);
    const timing = SIM_TIMINGS[model] ?? { firstTokenMs: 200, totalMs: 1000 };
    const tag = /#bench-\d+/.exec(raw)?.[0];
    const { text, structured } = answerText(body, tag);
    const call: SimCall = { tag, wire, model, structured, start, firstToken: 0, end: 0 };
    calls.push(call);
    const { head, frames, tail } =
      wire === 'openai'
        ? openaiFrames(model, text)
        : wire === 'anthropic'
          ? anthropicFrames(model, text)
          : googleFrames(model, text);
    await pace(res, call, timing, frames, head, tail);
  });
  server.keepAliveTimeout = 60_000;
  return new Promise<{ port: number; calls: SimCall[]; close: () => Promise<void> }>((resolve) => {
    server.listen(port, host, () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        calls,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

// As a child process: start, report the port, answer the parent's questions.
if (process.send && process.argv[2] === 'child') {
  const sim = await startSimulator();
  process.on('message', (message: { type: string }) => {
    if (message.type === 'log') process.send!({ type: 'log', calls: sim.calls.splice(0) });
    else if (message.type === 'cpu') process.send!({ type: 'cpu', cpu: process.cpuUsage() });
    else if (message.type === 'exit') void sim.close().then(() => process.exit(0));
  });
  process.send({ type: 'ready', port: sim.port });
}

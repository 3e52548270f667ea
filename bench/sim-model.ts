/**
 * A simulated provider (`LanguageModelV3`) of exactly known timing, so a debate's ideal duration can be
 * computed: per slot a fixed time to first token, delay per token and token count, no jitter. Deltas are due
 * at absolute times, so timer lateness never accumulates; structured output is JSON drawn from the schema.
 * It does almost no work per call, so CPU measured with it is the engine's and the server's alone.
 */
import type {
  JSONSchema7,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { SlotConfig } from '../server/src/config/slots.js';
import { sampleJson } from '../server/src/providers/offline/json-sample.js';
import { pacedStream } from '../server/src/providers/offline/paced-stream.js';
import { seededRng } from '../server/src/providers/offline/seeded-random.js';

type SlotNumber = SlotConfig['slot'];

/** Fixed timing of every call a slot answers. */
export interface SimProfile {
  /** From `doStream` to the first text delta. */
  firstTokenMs: number;
  /** Between two text deltas. */
  tokenMs: number;
  /** Text deltas per call (at least 1); `finish` follows the last one at once. */
  tokens: number;
}

/** How long one call lasts, `doStream` to `finish`. */
export function callMs(p: SimProfile): number {
  return p.firstTokenMs + (p.tokens - 1) * p.tokenMs;
}

/**
 * Five different paces, 80–400 ms a call, 10 ms a token (100 deltas/s, a fast hosted model).
 * Slot 3 is the slowest (the critical path of every round), slot 4 the fastest (the first token).
 */
export const SIM_PROFILES: Readonly<Record<SlotNumber, SimProfile>> = {
  1: { firstTokenMs: 100, tokenMs: 10, tokens: 15 }, // 240 ms; writes the verdict
  2: { firstTokenMs: 60, tokenMs: 10, tokens: 11 }, // 160 ms
  3: { firstTokenMs: 200, tokenMs: 10, tokens: 21 }, // 400 ms
  4: { firstTokenMs: 30, tokenMs: 10, tokens: 6 }, // 80 ms
  5: { firstTokenMs: 120, tokenMs: 10, tokens: 19 }, // 300 ms
};

/** What one call did, on the `performance.now()` clock; filled in as it happens. */
export interface SimCall {
  slot: SlotNumber;
  /** Whether structured output was asked for. */
  json: boolean;
  start: number;
  /** When the first text delta was enqueued. */
  firstToken?: number;
  /** When `finish` was enqueued. */
  end?: number;
  aborted?: boolean;
}

export interface SimModelOptions {
  slot: SlotNumber;
  profile?: SimProfile;
  /** Gets each call's record when the call starts; the model fills it in as the call proceeds. */
  onCall?: (call: SimCall) => void;
}

const WORDS = ['latency', 'debate', 'panel', 'stream', 'verdict', 'consensus', 'tokens', 'provider'];

export class SimLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls = {};
  readonly slot: SlotNumber;
  readonly profile: SimProfile;
  readonly #onCall: ((call: SimCall) => void) | undefined;
  readonly #texts = new Map<string, string[]>();

  constructor(options: SimModelOptions) {
    this.slot = options.slot;
    this.profile = options.profile ?? SIM_PROFILES[options.slot];
    if (!(this.profile.tokens >= 1)) throw new RangeError('a simulated call streams at least one token');
    this.provider = `sim.slot${options.slot}`;
    this.modelId = `sim-${options.slot}`;
    this.#onCall = options.onCall;
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const chunks = this.#chunks(options);
    await sleepUntil(performance.now() + callMs(this.profile), options.abortSignal);
    return {
      content: [{ type: 'text', text: chunks.join('') }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usage(options.prompt, chunks.length),
      response: { id: `sim-${this.slot}`, modelId: this.modelId, timestamp: new Date() },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const start = performance.now();
    const signal = options.abortSignal;
    signal?.throwIfAborted();
    const json = options.responseFormat?.type === 'json';
    const call: SimCall = { slot: this.slot, json, start };
    this.#onCall?.(call);
    const chunks = this.#chunks(options);
    const { firstTokenMs, tokenMs } = this.profile;
    const finish: LanguageModelV3StreamPart = {
      type: 'finish',
      usage: usage(options.prompt, chunks.length),
      finishReason: { unified: 'stop', raw: 'stop' },
    };
    const stream = pacedStream<LanguageModelV3StreamPart>({
      head: [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: `sim-${call.slot}`, modelId: `sim-${call.slot}`, timestamp: new Date() },
        { type: 'text-start', id: 'text-0' },
      ],
      timed: chunks.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 'text-0', delta })),
      dueAt: (i) => start + firstTokenMs + i * tokenMs,
      tail: [{ type: 'text-end', id: 'text-0' }, finish],
      signal,
      abortError: asAbortError,
      onTimed: (i) => {
        if (i === 0) call.firstToken = performance.now();
      },
      onEnd: () => {
        call.end = performance.now();
      },
      onAbort: () => {
        call.aborted = true;
      },
    });
    return { stream, request: { body: { sim: true } } };
  }

  /** The call's text cut into exactly `tokens` deltas; the same for every call of one kind. */
  #chunks(options: LanguageModelV3CallOptions): string[] {
    const format = options.responseFormat;
    const schema = format?.type === 'json' ? format.schema : undefined;
    const key = format?.type === 'json' ? JSON.stringify(schema ?? null) : '';
    let chunks = this.#texts.get(key);
    if (chunks === undefined) {
      const text = format?.type === 'json' ? jsonText(schema, this.slot, key) : prose(this.slot, this.profile.tokens);
      chunks = split(text, this.profile.tokens);
      this.#texts.set(key, chunks);
    }
    return chunks;
  }
}

function jsonText(schema: JSONSchema7 | undefined, slot: SlotNumber, key: string): string {
  const rng = seededRng(`sim-${slot}\u0000${key}`);
  return JSON.stringify(schema === undefined ? { answer: prose(slot, 12) } : sampleJson(schema, rng, WORDS));
}

/** `text` in `n` consecutive, nearly equal, non-empty pieces; JSON too short for that gets trailing spaces. */
function split(text: string, n: number): string[] {
  const padded = text.padEnd(n, ' ');
  return Array.from({ length: n }, (_, i) =>
    padded.slice(Math.floor((i * padded.length) / n), Math.floor(((i + 1) * padded.length) / n)),
  );
}

function prose(slot: SlotNumber, tokens: number): string {
  const words = Array.from({ length: tokens * 4 }, (_, i) => WORDS[(i * 7 + slot) % WORDS.length]!);
  return `Slot ${slot} holds that ${words.join(' ')}.`;
}

/** About four characters a token, for the usage a provider would report. */
function usage(prompt: LanguageModelV3Prompt, output: number): LanguageModelV3Usage {
  let chars = 0;
  for (const message of prompt) {
    if (typeof message.content === 'string') chars += message.content.length;
    else for (const part of message.content) if ('text' in part && typeof part.text === 'string') chars += part.text.length;
  }
  const input = Math.ceil(chars / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/**
 * Resolves at `deadline` (a `performance.now()` time), or rejects when `signal` aborts. Always from a
 * macrotask, as a real provider's bytes arrive (a socket read): when the deadline has already passed
 * (the process is behind) it resolves on the next turn of the event loop (`setImmediate`), never
 * synchronously, so late tokens cannot chain into one endless run of microtasks that starves timers
 * and I/O, which a socket-fed stream would not do.
 */
function sleepUntil(deadline: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      if (timer) clearTimeout(timer);
      else clearImmediate(immediate);
      reject(signal?.reason);
    };
    const done = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const ms = deadline - performance.now();
    const timer = ms > 0 ? setTimeout(done, ms) : undefined;
    const immediate = ms > 0 ? undefined : setImmediate(done);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** What a provider's aborted fetch rejects with: the signal's AbortError or TimeoutError, else a new AbortError. */
function asAbortError(reason: unknown): Error {
  if (reason instanceof Error && (reason.name === 'AbortError' || reason.name === 'TimeoutError')) return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

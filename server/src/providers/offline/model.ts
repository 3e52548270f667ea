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
import { sleep } from '../sleep.js';
import { sampleJson } from './json-sample.js';
import { pacedStream } from './paced-stream.js';
import { hash53, intBetween, type Rng, seededRng } from './seeded-random.js';
import { type PromptFacts, readPrompt, standInFinal, standInText, standInVerdict } from './stand-in.js';
import { keywords, tokenize } from './text.js';

/** How fast a model answers: time to its first token, then the mean time per token. */
export interface LatencyProfile {
  firstTokenMs: number;
  tokenMs: number;
}

/**
 * One profile per slot, so the five offline slots stream at visibly different speeds; slot 4's
 * stated strength is speed. Quicker than hosted models (15–30 ms a token): the stand-in only
 * shows the debate's mechanics, and a 3-round offline debate should take about 5 s, not 30.
 */
export const SLOT_LATENCY: Readonly<Record<1 | 2 | 3 | 4 | 5, LatencyProfile>> = {
  1: { firstTokenMs: 160, tokenMs: 6 },
  2: { firstTokenMs: 120, tokenMs: 5 },
  3: { firstTokenMs: 200, tokenMs: 7 },
  4: { firstTokenMs: 80, tokenMs: 3 },
  5: { firstTokenMs: 140, tokenMs: 4 },
};

/** The five slots' mean time per token: what `tokenDelayMs` sets. */
const MEAN_TOKEN_MS = Object.values(SLOT_LATENCY).reduce((sum, p) => sum + p.tokenMs, 0) / 5;

export interface OfflineModelOptions {
  /** The provider the model stands in for; it names the model (`offline-<provider>`) and seeds its text. */
  provider: string;
  /** Picks the latency profile and seeds the text; without it the profile derives from `provider`. */
  slot?: 1 | 2 | 3 | 4 | 5;
  /**
   * Mean delay per token across the five slots, in milliseconds. Scales every profile alike, time to
   * first token included, so the slots keep their relative speeds; `0` streams with no delay at all
   * (tests, benches).
   */
  tokenDelayMs?: number;
  /** Overrides the time to first token. */
  firstTokenDelayMs?: number;
}

/** What `providerMetadata` carries so a caller can tell an offline answer from a live one. */
export const OFFLINE_METADATA = { consilium: { offline: true } } as const;

/**
 * A deterministic stand-in for a provider's model, implementing the AI SDK's `LanguageModelV3`, so
 * the whole stack — `streamAnswer` (or `streamText`), structured output, abort, usage — runs
 * without keys or network.
 * The same provider, slot and prompt always give the same text; for `responseFormat: json` with a
 * schema the text is JSON that satisfies the schema.
 */
export class OfflineLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls = {};
  readonly profile: LatencyProfile;
  private readonly slot: number | undefined;

  constructor(options: OfflineModelOptions) {
    this.provider = `offline.${options.provider}`;
    this.modelId = `offline-${options.provider}`;
    this.slot = options.slot;
    const base = options.slot !== undefined ? SLOT_LATENCY[options.slot] : profileFor(options.provider);
    const scale = options.tokenDelayMs === undefined ? 1 : options.tokenDelayMs / MEAN_TOKEN_MS;
    this.profile = {
      firstTokenMs: options.firstTokenDelayMs ?? base.firstTokenMs * scale,
      tokenMs: base.tokenMs * scale,
    };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const plan = this.plan(options);
    const total = plan.delays.reduce((a, b) => a + b, 0);
    await sleep(total, options.abortSignal);
    return {
      content: [{ type: 'text', text: plan.tokens.join('') }],
      finishReason: plan.finishReason,
      usage: plan.usage,
      providerMetadata: OFFLINE_METADATA,
      response: { id: plan.id, modelId: this.modelId, timestamp: new Date() },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const plan = this.plan(options);
    const signal = options.abortSignal;
    signal?.throwIfAborted();
    // Each token is due its delay after the previous one's due time, from the call's start.
    const due: number[] = [];
    let at = performance.now();
    for (const delay of plan.delays) {
      at += delay;
      due.push(at);
    }
    const stream = pacedStream<LanguageModelV3StreamPart>({
      head: [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: plan.id, modelId: this.modelId, timestamp: new Date() },
        { type: 'text-start', id: 'text-0' },
      ],
      timed: plan.tokens.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 'text-0', delta })),
      dueAt: (i) => due[i]!,
      tail: [
        { type: 'text-end', id: 'text-0' },
        { type: 'finish', usage: plan.usage, finishReason: plan.finishReason, providerMetadata: OFFLINE_METADATA },
      ],
      signal,
      abortError: asAbortError,
    });
    return { stream, request: { body: { offline: true } } };
  }

  /** Everything about one call, fixed up front from its input: tokens, per-token delays, usage. */
  private plan(options: LanguageModelV3CallOptions) {
    const promptText = flattenPrompt(options.prompt);
    const format = options.responseFormat;
    const seed = [
      this.modelId,
      this.slot ?? '',
      promptText,
      format?.type === 'json' ? JSON.stringify(format.schema ?? {}) : '',
    ].join('\u0000');
    const rng = seededRng(seed);
    const words = keywords(lastUserText(options.prompt) || promptText);
    const facts = readPrompt(systemText(options.prompt), lastUserText(options.prompt));
    // Called without the debate's system prompt, it still says whose stand-in it is.
    facts.slot ??= this.slot;
    facts.provider ??= this.provider.replace(/^offline\./, '');
    const text = format?.type === 'json' ? JSON.stringify(jsonAnswer(format.schema, rng, words, facts)) : standInText(facts);
    let tokens = tokenize(text);
    const length = options.maxOutputTokens !== undefined && tokens.length > options.maxOutputTokens;
    if (length) tokens = tokens.slice(0, options.maxOutputTokens);
    const input = tokenize(promptText).length;
    return {
      id: `offline-${hash53(seed).toString(36)}`,
      tokens,
      delays: tokens.map((_, i) => jitter(rng, i === 0 ? this.profile.firstTokenMs : this.profile.tokenMs)),
      usage: usage(input, tokens.length),
      finishReason: length ? { unified: 'length' as const, raw: 'max_tokens' } : { unified: 'stop' as const, raw: 'stop' },
    };
  }
}

/** The debate's own shapes get the stand-in's honest replies; any other schema a valid sample. */
function jsonAnswer(schema: JSONSchema7 | undefined, rng: Rng, words: readonly string[], facts: PromptFacts) {
  const keys = new Set(Object.keys(schema?.properties ?? {}));
  if (keys.has('position') && keys.has('changed') && keys.has('agreements')) return standInFinal(facts);
  if (keys.has('summary') && keys.has('actions') && keys.has('dissent')) return standInVerdict(facts);
  return schema === undefined ? { answer: standInText(facts) } : sampleJson(schema, rng, words);
}

/** ±40 % around the mean, so the stream has the uneven rhythm of a real one. */
function jitter(rng: Rng, meanMs: number): number {
  return meanMs <= 0 ? 0 : Math.round(meanMs * (0.6 + 0.8 * rng()));
}

function usage(input: number, output: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** A provider name outside the five slots still gets a stable profile of its own. */
function profileFor(provider: string): LatencyProfile {
  const rng = seededRng(provider);
  return { firstTokenMs: intBetween(rng, 100, 250), tokenMs: intBetween(rng, 3, 7) };
}

/** The prompt as the text a model would read: every message's text parts, in order. */
function flattenPrompt(prompt: LanguageModelV3Prompt): string {
  return prompt
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : m.content
            .map((p) => ('text' in p && typeof p.text === 'string' ? p.text : ''))
            .filter(Boolean)
            .join('\n'),
    )
    .join('\n\n');
}

function systemText(prompt: LanguageModelV3Prompt): string {
  return flattenPrompt(prompt.filter((m) => m.role === 'system'));
}

function lastUserText(prompt: LanguageModelV3Prompt): string {
  const last = prompt.findLast((m) => m.role === 'user');
  return last === undefined ? '' : flattenPrompt([last]);
}

/** What a provider's aborted fetch rejects with: the signal's AbortError or TimeoutError, else a new AbortError. */
function asAbortError(reason: unknown): Error {
  if (reason instanceof Error && (reason.name === 'AbortError' || reason.name === 'TimeoutError')) return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

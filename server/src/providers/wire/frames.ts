/**
 * What every wire format's frame decoder shares: the interface `streamAnswer` reads a response's
 * frames through, and the helpers for their JSON. One `JSON.parse` per frame, no zod per chunk.
 */
import { JSONParseError } from '@ai-sdk/provider';
import type { FinishReason, Usage } from '../../../../sdk/src/generated/types.gen.js';

/** What the frames of one response report, as they come. */
export interface FrameSink {
  text(delta: string): void;
  /** An error the provider streamed, or a frame that is not JSON. The first one is the cause. */
  error(error: unknown): void;
}

export interface WireFinish {
  reason: FinishReason;
  /** Every count reported so far, also when the stream then broke (what was billed up to there). */
  usage: Usage;
  /**
   * Whether the stream said it was done (Anthropic's `message_stop`, Chat Completions' `[DONE]` or a
   * `finish_reason`, Gemini's `finishReason`). A body that ends without it was cut, whatever came before.
   */
  done: boolean;
  /** What the model said when it refused (OpenAI's `refusal` deltas, Anthropic's `stop_details`), when it did. */
  refusal?: string;
  /** The first tool the model asked to call (none is offered: such a stream is no answer), when it did. */
  toolCall?: string;
}

/** One response's frames: `frame` for each SSE event, `finish` when the body ended. */
export interface WireFrames {
  frame(event: string, data: string): void;
  /** The finish reason and usage as reported so far (`other`, zeros and not `done` when the stream never said). */
  finish(): WireFinish;
  /**
   * When the body ended, the token of a request that goes on with the answer (Gemini's
   * `CONTINUATION`), taken once; the frames of that request's body then follow on the same reader.
   */
  continuation?(): string | undefined;
}

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A token count as reported, or 0 for anything that is not a finite number. */
export const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Parses one frame's data; a frame that is not a JSON object goes to the sink as the SDKs reported it. */
export function parseFrame(data: string, sink: FrameSink): Json | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (cause) {
    sink.error(new JSONParseError({ text: data, cause }));
    return undefined;
  }
  if (isObject(value)) return value;
  sink.error(new JSONParseError({ text: data, cause: new TypeError('A stream frame is not a JSON object') }));
  return undefined;
}

/** The parts of a count that are billed at their own rates; each within `input` or `output`. */
export interface UsageParts {
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/** Usage as the contract reports it: totals, and the cache and reasoning parts where there are any. */
export function usageOf(input: number, output: number, parts: UsageParts = {}): Usage {
  const usage: Usage = { inputTokens: input, outputTokens: output, totalTokens: input + output };
  if (parts.cacheRead) usage.cacheReadTokens = parts.cacheRead;
  if (parts.cacheWrite) usage.cacheWriteTokens = parts.cacheWrite;
  if (parts.reasoning) usage.reasoningTokens = parts.reasoning;
  return usage;
}

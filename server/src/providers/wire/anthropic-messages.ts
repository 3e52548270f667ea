/**
 * Anthropic Messages events: `message_start` (input tokens, cache reads and writes),
 * `content_block_delta` with a `text_delta`, `message_delta` (stop reason, output tokens),
 * `error` (e.g. `overloaded_error`) mid-stream; `ping`, `message_stop` and block starts and stops
 * carry nothing the answer needs.
 */
import type { FinishReason } from '../../../../sdk/src/generated/types.gen.js';
import { count, type FrameSink, isObject, type Json, parseFrame, usageOf, type WireFinish, type WireFrames } from './frames.js';

export class AnthropicMessagesFrames implements WireFrames {
  #reason: FinishReason = 'other';
  #input = 0;
  #cacheRead = 0;
  #cacheWrite = 0;
  #output = 0;

  constructor(private readonly sink: FrameSink) {}

  frame(_event: string, data: string): void {
    const value = parseFrame(data, this.sink);
    if (value === undefined) return;
    switch (value.type) {
      case 'content_block_delta': {
        const delta = value.delta;
        if (isObject(delta) && delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '')
          this.sink.text(delta.text);
        return;
      }
      case 'message_start': {
        const message = isObject(value.message) ? value.message : {};
        if (isObject(message.usage)) this.#usage(message.usage);
        if (typeof message.stop_reason === 'string') this.#reason = anthropicReason(message.stop_reason);
        return;
      }
      case 'message_delta': {
        if (isObject(value.usage)) this.#usage(value.usage);
        const delta = value.delta;
        if (isObject(delta)) this.#reason = typeof delta.stop_reason === 'string' ? anthropicReason(delta.stop_reason) : 'other';
        return;
      }
      case 'error':
        this.sink.error(value.error ?? value);
        return;
      default:
    }
  }

  /** Counts as they come: `message_delta`'s are cumulative and replace `message_start`'s where given. */
  #usage(u: Json): void {
    if (u.input_tokens != null) this.#input = count(u.input_tokens);
    if (u.output_tokens != null) this.#output = count(u.output_tokens);
    if (u.cache_read_input_tokens != null) this.#cacheRead = count(u.cache_read_input_tokens);
    if (u.cache_creation_input_tokens != null) this.#cacheWrite = count(u.cache_creation_input_tokens);
  }

  finish(): WireFinish {
    return { reason: this.#reason, usage: usageOf(this.#input + this.#cacheRead + this.#cacheWrite, this.#output) };
  }
}

function anthropicReason(reason: string): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

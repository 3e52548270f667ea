/**
 * Anthropic Messages events: `message_start` (input tokens, cache reads and writes),
 * `content_block_delta` with a `text_delta`, `message_delta` (stop reason, output tokens, the
 * refusal's `stop_details`, compaction's `iterations`), `message_stop` (the end: a stream without
 * it was cut), `error` (e.g. `overloaded_error`) mid-stream; `ping` and block starts and stops
 * carry nothing the answer needs, but a `tool_use` block's start names a tool the model asked for.
 */
import type { FinishReason } from '../../../../sdk/src/generated/types.gen.js';
import { count, type FrameSink, isObject, type Json, parseFrame, usageOf, type WireFinish, type WireFrames } from './frames.js';

export class AnthropicMessagesFrames implements WireFrames {
  #reason: FinishReason = 'other';
  #done = false;
  #refusal: string | undefined;
  #tool: string | undefined;
  #input = 0;
  #cacheRead = 0;
  #cacheWrite = 0;
  #output = 0;
  #thinking = 0;

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
      case 'content_block_start': {
        const block = value.content_block;
        if (isObject(block) && block.type === 'tool_use') this.#tool ??= String(block.name);
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
        if (isObject(delta)) {
          this.#reason = typeof delta.stop_reason === 'string' ? anthropicReason(delta.stop_reason) : 'other';
          const details = delta.stop_details;
          if (isObject(details) && typeof details.explanation === 'string') this.#refusal = details.explanation;
        }
        return;
      }
      case 'message_stop':
        this.#done = true;
        return;
      case 'error':
        this.sink.error(value.error ?? value);
        return;
      default:
    }
  }

  /**
   * Counts as they come: `message_delta`'s are cumulative and replace `message_start`'s where given.
   * With compaction the top-level counts are the last iteration's only; `iterations` lists each
   * one, all billed, so their sum is the call's.
   */
  #usage(u: Json): void {
    const iterations = Array.isArray(u.iterations) ? u.iterations.filter(isObject) : [];
    const sum = (key: string) => iterations.reduce((total, i) => total + count(i[key]), 0);
    const take = (key: string) => (iterations.length > 0 ? sum(key) : count(u[key]));
    if (u.input_tokens != null) this.#input = take('input_tokens');
    if (u.output_tokens != null) this.#output = take('output_tokens');
    if (u.cache_read_input_tokens != null) this.#cacheRead = take('cache_read_input_tokens');
    if (u.cache_creation_input_tokens != null) this.#cacheWrite = take('cache_creation_input_tokens');
    const details = u.output_tokens_details;
    if (isObject(details) && details.thinking_tokens != null) this.#thinking = count(details.thinking_tokens);
  }

  finish(): WireFinish {
    const usage = usageOf(this.#input + this.#cacheRead + this.#cacheWrite, this.#output, {
      cacheRead: this.#cacheRead,
      cacheWrite: this.#cacheWrite,
      reasoning: this.#thinking,
    });
    const finish: WireFinish = { reason: this.#reason, usage, done: this.#done };
    if (this.#refusal !== undefined) finish.refusal = this.#refusal;
    if (this.#tool !== undefined) finish.toolCall = this.#tool;
    return finish;
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

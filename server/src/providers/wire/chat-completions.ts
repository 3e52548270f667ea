/**
 * OpenAI Chat Completions chunks (OpenAI, DeepSeek, xAI, OpenAI-compatible servers):
 * `choices[0].delta.content` is text, `choices[0].finish_reason` the reason, a chunk with `usage`
 * (the last one, with `stream_options.include_usage`) the counts, `data: [DONE]` the end, and
 * `{ "error": … }` an error the server streamed.
 */
import type { FinishReason } from '../../../../sdk/src/generated/types.gen.js';
import { count, type FrameSink, isObject, type Json, parseFrame, usageOf, type WireFinish, type WireFrames } from './frames.js';

export class ChatCompletionsFrames implements WireFrames {
  #reason: FinishReason = 'other';
  #refused = false;
  #input = 0;
  #output = 0;

  /** xAI counts reasoning tokens apart from completion tokens, and may leave cached ones out of the prompt's. */
  constructor(
    private readonly sink: FrameSink,
    private readonly xai: boolean,
  ) {}

  frame(_event: string, data: string): void {
    if (data === '[DONE]') return;
    const value = parseFrame(data, this.sink);
    if (value === undefined) return;
    if ('error' in value) {
      this.#reason = 'error';
      this.sink.error(value.error ?? value);
      return;
    }
    if (isObject(value.usage)) this.#usage(value.usage);
    const choice = Array.isArray(value.choices) ? value.choices[0] : undefined;
    if (!isObject(choice)) return;
    if (typeof choice.finish_reason === 'string') this.#reason = chatReason(choice.finish_reason);
    const delta = choice.delta;
    if (!isObject(delta)) return;
    if (typeof delta.refusal === 'string' && delta.refusal !== '') this.#refused = true;
    const content = delta.content;
    if (typeof content === 'string' && content !== '') this.sink.text(content);
  }

  #usage(u: Json): void {
    const prompt = count(u.prompt_tokens);
    const completion = count(u.completion_tokens);
    if (!this.xai) {
      this.#input = prompt;
      this.#output = completion;
      return;
    }
    const cached = count(isObject(u.prompt_tokens_details) ? u.prompt_tokens_details.cached_tokens : 0);
    const reasoning = count(isObject(u.completion_tokens_details) ? u.completion_tokens_details.reasoning_tokens : 0);
    this.#input = cached <= prompt ? prompt : prompt + cached;
    this.#output = completion + reasoning;
  }

  finish(): WireFinish {
    const reason = this.#reason === 'stop' && this.#refused ? 'content-filter' : this.#reason;
    return { reason, usage: usageOf(this.#input, this.#output) };
  }
}

/** The SDKs' mapping; tool calls (which the debate never asks for) count as `other`. */
function chatReason(reason: string): FinishReason {
  if (reason === 'stop' || reason === 'length') return reason;
  return reason === 'content_filter' ? 'content-filter' : 'other';
}

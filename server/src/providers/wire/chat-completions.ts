/**
 * OpenAI Chat Completions chunks (OpenAI, DeepSeek, xAI, OpenAI-compatible servers):
 * `choices[0].delta.content` is text, `delta.refusal` a refusal's text, `choices[0].finish_reason`
 * the reason, `delta.tool_calls` a tool the model asked for, a chunk with `usage` (the last one, with `stream_options.include_usage`) the counts,
 * `data: [DONE]` the end, and `{ "error": … }` an error the server streamed. A stream is done once
 * it sent a finish reason or `[DONE]`; a body that ends before either was cut.
 */
import type { FinishReason } from '../../../../sdk/src/generated/types.gen.js';
import { count, type FrameSink, isObject, type Json, parseFrame, usageOf, type WireFinish, type WireFrames } from './frames.js';

export class ChatCompletionsFrames implements WireFrames {
  #reason: FinishReason = 'other';
  #done = false;
  #refusal = '';
  #tool: string | undefined;
  #input = 0;
  #output = 0;
  #cacheRead = 0;
  #reasoning = 0;

  /** xAI counts reasoning tokens apart from completion tokens, and may leave cached ones out of the prompt's. */
  constructor(
    private readonly sink: FrameSink,
    private readonly xai: boolean,
  ) {}

  frame(_event: string, data: string): void {
    if (data === '[DONE]') {
      this.#done = true;
      return;
    }
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
    if (typeof choice.finish_reason === 'string') {
      this.#reason = chatReason(choice.finish_reason);
      this.#done = true;
    }
    const delta = choice.delta;
    if (!isObject(delta)) return;
    if (typeof delta.refusal === 'string') this.#refusal += delta.refusal;
    if (this.#tool === undefined && Array.isArray(delta.tool_calls)) this.#tool = toolName(delta.tool_calls[0]);
    const content = delta.content;
    if (typeof content === 'string' && content !== '') this.sink.text(content);
  }

  /**
   * OpenAI and DeepSeek count reasoning within `completion_tokens`; xAI (natively or behind a
   * compatible slot) apart from it, which its `total_tokens` shows: prompt + completion + reasoning.
   * Cached tokens are within the prompt's, but where xAI reports more than the prompt's.
   */
  #usage(u: Json): void {
    const prompt = count(u.prompt_tokens);
    const completion = count(u.completion_tokens);
    const promptDetails = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
    const cached = count(promptDetails.cached_tokens) || count(u.prompt_cache_hit_tokens);
    const reasoning = count(isObject(u.completion_tokens_details) ? u.completion_tokens_details.reasoning_tokens : 0);
    const apart = reasoning > 0 && (this.xai || count(u.total_tokens) >= prompt + completion + reasoning);
    this.#input = cached <= prompt ? prompt : prompt + cached;
    this.#output = apart ? completion + reasoning : completion;
    this.#cacheRead = cached;
    this.#reasoning = reasoning;
  }

  finish(): WireFinish {
    const refused = this.#refusal !== '';
    const reason = this.#reason === 'stop' && refused ? 'content-filter' : this.#reason;
    const usage = usageOf(this.#input, this.#output, { cacheRead: this.#cacheRead, reasoning: this.#reasoning });
    const finish: WireFinish = { reason, usage, done: this.#done };
    if (refused) finish.refusal = this.#refusal;
    if (this.#tool !== undefined) finish.toolCall = this.#tool;
    return finish;
  }
}

/** The name in a tool call's first delta (later deltas of the same call carry only arguments). */
function toolName(call: unknown): string | undefined {
  const fn = isObject(call) ? call.function : undefined;
  return isObject(fn) && typeof fn.name === 'string' ? fn.name : undefined;
}

/** The SDKs' mapping; tool calls (which the debate never asks for) count as `other`. */
function chatReason(reason: string): FinishReason {
  if (reason === 'stop' || reason === 'length') return reason;
  return reason === 'content_filter' ? 'content-filter' : 'other';
}

/**
 * The streaming wire formats `streamAnswer` reads itself rather than through the provider SDKs,
 * and the frame decoder for each.
 */
import { AnthropicMessagesFrames } from './anthropic-messages.js';
import { ChatCompletionsFrames } from './chat-completions.js';
import type { FrameSink, WireFrames } from './frames.js';
import { GeminiGenerateContentFrames } from './gemini-generate-content.js';

export type WireFormat = 'chat-completions' | 'anthropic-messages' | 'gemini-generate-content';

/** The decoder for one response's frames; `provider` is the slot's provider id (xAI counts its tokens its own way). */
export function wireFrames(format: WireFormat, sink: FrameSink, provider = ''): WireFrames {
  if (format === 'anthropic-messages') return new AnthropicMessagesFrames(sink);
  if (format === 'gemini-generate-content') return new GeminiGenerateContentFrames(sink);
  return new ChatCompletionsFrames(sink, provider === 'xai');
}

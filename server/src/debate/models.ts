import { createAnthropic } from '@ai-sdk/anthropic';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { createXai } from '@ai-sdk/xai';
import { ConfigError, type SlotConfig } from '../meta/slots.js';
import { OfflineLanguageModel, type OfflineModelOptions } from './offline-model.js';

/** A slot's model, ready for `streamAnswer`, with what an `Answer` reports about it. */
export interface SlotModel {
  slot: SlotConfig['slot'];
  provider: string;
  /** The configured model id, or `offline-<provider>` for the offline model. */
  model: string;
  /** True when the built-in offline model stands in (the slot has no key). */
  offline: boolean;
  languageModel: LanguageModelV3;
}

export interface SlotModelOptions {
  /** Replaces the global `fetch` for provider calls (a proxy agent, a recorder). */
  fetch?: typeof fetch;
  /** Pace of the offline model when it stands in. */
  offline?: Pick<OfflineModelOptions, 'tokenDelayMs' | 'firstTokenDelayMs'>;
}

type NativeFactory = (settings: { apiKey: string; baseURL?: string; fetch?: typeof fetch }, modelId: string) => LanguageModelV3;

/**
 * The five native providers. OpenAI goes through Chat Completions (`.chat`), not the Responses API:
 * it is stateless (Responses stores conversations by default), it is what OpenAI-compatible proxies
 * speak when a base URL is set, and every chat-style provider here then shares one wire shape.
 */
const NATIVE: Record<string, NativeFactory> = {
  anthropic: (s, id) => createAnthropic(s)(id),
  openai: (s, id) => createOpenAI(s).chat(id),
  deepseek: (s, id) => createDeepSeek(s)(id),
  google: (s, id) => createGoogleGenerativeAI(s)(id),
  xai: (s, id) => createXai(s)(id),
};

/**
 * Builds the language model for one slot. A native provider gets its own SDK with the key from
 * `env[slot.apiKeyEnv]` (and `slot.baseUrl`, a proxy, which must include the API version path the
 * SDK expects, e.g. `…/v1`). Any other provider is an OpenAI-compatible server at `slot.baseUrl`,
 * asked for usage in the stream (`include_usage`) and for JSON-schema output. A slot without a key
 * gets the deterministic offline model.
 */
export function createSlotModel(
  slot: SlotConfig,
  env: Record<string, string | undefined>,
  options: SlotModelOptions = {},
): SlotModel {
  const apiKey = env[slot.apiKeyEnv] || undefined;
  const base = { slot: slot.slot, provider: slot.provider };
  const fetchOption = options.fetch ? { fetch: options.fetch } : {};
  const baseURL = slot.baseUrl !== undefined ? { baseURL: slot.baseUrl } : {};

  if (slot.api === 'openai-compatible') {
    if (slot.baseUrl === undefined)
      throw new ConfigError(`Slot ${slot.slot} (${slot.provider}) is OpenAI-compatible but has no base URL`);
    const provider = createOpenAICompatible({
      name: slot.provider,
      baseURL: slot.baseUrl,
      ...(apiKey !== undefined && { apiKey }),
      includeUsage: true,
      supportsStructuredOutputs: true,
      ...fetchOption,
    });
    return { ...base, model: slot.model, offline: false, languageModel: provider.chatModel(slot.model) };
  }

  const factory = NATIVE[slot.provider];
  if (factory === undefined) throw new ConfigError(`Slot ${slot.slot}: "${slot.provider}" is not a native provider`);
  if (!slot.live || apiKey === undefined) {
    const languageModel = new OfflineLanguageModel({ provider: slot.provider, slot: slot.slot, ...options.offline });
    return { ...base, model: languageModel.modelId, offline: true, languageModel };
  }
  return {
    ...base,
    model: slot.model,
    offline: false,
    languageModel: factory({ apiKey, ...baseURL, ...fetchOption }, slot.model),
  };
}

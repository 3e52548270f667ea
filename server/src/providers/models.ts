/**
 * Each slot's language model: the provider's AI SDK model, its package imported on the slot's first
 * call, or the offline stand-in when the slot has no key.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Prompt, SharedV3Warning } from '@ai-sdk/provider';
import { ConfigError, type SlotConfig } from '../config/slots.js';
import { OfflineLanguageModel, type OfflineModelOptions } from './offline/model.js';
import { learnTemplate, type RequestTemplate, type ShapeOptions } from './request-template.js';
import { Transport } from './transport.js';
import type { WireFormat } from './wire/formats.js';

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

type ProviderSettings = { apiKey: string; baseURL?: string };

/** Makes the SDK's model with a given `fetch`, once its package is loaded. */
type SdkModelMaker = (fetch: typeof globalThis.fetch) => LanguageModelV3;

interface NativeProvider {
  /** `LanguageModelV3.provider` of the model `load` makes, known before its package loads. */
  name: string;
  /** The streaming format `streamAnswer` reads itself (`wire/`). */
  wire: WireFormat;
  load: (settings: ProviderSettings, modelId: string) => Promise<SdkModelMaker>;
}

/**
 * The five native providers, each package imported on its slot's first call: a server starts
 * without loading SDKs it may never use (about 20 ms each), and offline slots load none.
 * OpenAI goes through Chat Completions (`.chat`), not the Responses API: it is stateless
 * (Responses stores conversations by default), it is what OpenAI-compatible proxies speak when a
 * base URL is set, and every chat-style provider here then shares one wire shape.
 */
const NATIVE: Record<string, NativeProvider> = {
  anthropic: {
    name: 'anthropic.messages',
    wire: 'anthropic-messages',
    load: async (s, id) => {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return (fetch) => createAnthropic({ ...s, fetch })(id);
    },
  },
  openai: {
    name: 'openai.chat',
    wire: 'chat-completions',
    load: async (s, id) => {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return (fetch) => createOpenAI({ ...s, fetch }).chat(id);
    },
  },
  deepseek: {
    name: 'deepseek.chat',
    wire: 'chat-completions',
    load: async (s, id) => {
      const { createDeepSeek } = await import('@ai-sdk/deepseek');
      return (fetch) => createDeepSeek({ ...s, fetch })(id);
    },
  },
  google: {
    name: 'google.generative-ai',
    wire: 'gemini-generate-content',
    load: async (s, id) => {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      return (fetch) => createGoogleGenerativeAI({ ...s, fetch })(id);
    },
  },
  xai: {
    name: 'xai.chat',
    wire: 'chat-completions',
    load: async (s, id) => {
      const { createXai } = await import('@ai-sdk/xai');
      return (fetch) => createXai({ ...s, fetch })(id);
    },
  },
};

/**
 * A live provider's model. `streamAnswer` sends its requests from templates (`request-template.ts`)
 * and reads their event streams itself (`wire/`); where the SDK builds a request, it does so with
 * a model made for that call (`withFetch`). `doStream` is the SDK's own, for any other caller.
 */
export class ProviderLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  #maker: Promise<SdkModelMaker> | undefined;
  #model: Promise<LanguageModelV3> | undefined;

  constructor(
    readonly provider: string,
    readonly modelId: string,
    /** The streaming format of its responses. */
    readonly wire: WireFormat,
    readonly transport: Transport,
    /** Imports the SDK's package (on the first call; a failed import is tried again on the next). */
    private readonly load: () => Promise<SdkModelMaker>,
  ) {}

  /** Each call shape's request as the SDK builds it, or `undefined` where the SDK must build every one. */
  readonly #templates = new Map<string, Promise<RequestTemplate | undefined>>();

  /**
   * The template for the calls of `shape` (a key saying everything but the prompt's texts:
   * options, values, schema, roles), learned from the SDK on the shape's first call and shared by
   * the calls waiting for it. A failure to learn (the package would not load, the SDK refused the
   * options) is not kept: that call goes through the SDK, which reports it as before.
   */
  template(shape: string, options: ShapeOptions, prompt: LanguageModelV3Prompt): Promise<RequestTemplate | undefined> {
    let template = this.#templates.get(shape);
    if (template === undefined) {
      // A bound for callers that vary their options without end (every maxOutputTokens value is a shape).
      if (this.#templates.size >= 256) this.#templates.clear();
      template = learnTemplate(this, options, prompt);
      template.catch(() => this.#templates.delete(shape));
      this.#templates.set(shape, template);
    }
    return template;
  }

  /**
   * For calls the SDK builds (a shape without a template): its warnings for each call shape seen,
   * most often none; later calls of a known shape stop the SDK's work at the response and log
   * these again themselves.
   */
  readonly callWarnings = new Map<string, SharedV3Warning[]>();

  /** The SDK's model with `fetch` as its fetch: one per request the SDK builds for a call (`sdk-fetch.ts`). */
  async withFetch(fetch: typeof globalThis.fetch): Promise<LanguageModelV3> {
    if (this.#maker === undefined) {
      this.#maker = this.load();
      this.#maker.catch(() => {
        this.#maker = undefined;
      });
    }
    return (await this.#maker)(fetch);
  }

  /** The SDK's model with the transport's `fetch`, for calls made on this model directly. */
  loaded(): Promise<LanguageModelV3> {
    if (this.#model === undefined) {
      this.#model = this.withFetch(this.transport.fetch);
      this.#model.catch(() => {
        this.#model = undefined;
      });
    }
    return this.#model;
  }

  get supportedUrls(): PromiseLike<Record<string, RegExp[]>> {
    return this.loaded().then((model) => model.supportedUrls);
  }

  async doGenerate(options: LanguageModelV3CallOptions) {
    return (await this.loaded()).doGenerate(options);
  }

  async doStream(options: LanguageModelV3CallOptions) {
    return (await this.loaded()).doStream(options);
  }
}

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
  const transport = new Transport(options.fetch);
  const baseURL = slot.baseUrl !== undefined ? { baseURL: slot.baseUrl } : {};

  if (slot.api === 'openai-compatible') {
    if (slot.baseUrl === undefined)
      throw new ConfigError(`Slot ${slot.slot} (${slot.provider}) is OpenAI-compatible but has no base URL`);
    const settings = {
      name: slot.provider,
      baseURL: slot.baseUrl,
      ...(apiKey !== undefined && { apiKey }),
      includeUsage: true,
      supportsStructuredOutputs: true,
    };
    const languageModel = new ProviderLanguageModel(
      `${slot.provider}.chat`,
      slot.model,
      'chat-completions',
      transport,
      async () => {
        const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
        return (fetch) => createOpenAICompatible({ ...settings, fetch }).chatModel(slot.model);
      },
    );
    return { ...base, model: slot.model, offline: false, languageModel };
  }

  const native = NATIVE[slot.provider];
  if (native === undefined) throw new ConfigError(`Slot ${slot.slot}: "${slot.provider}" is not a native provider`);
  if (!slot.live || apiKey === undefined) {
    const languageModel = new OfflineLanguageModel({ provider: slot.provider, slot: slot.slot, ...options.offline });
    return { ...base, model: languageModel.modelId, offline: true, languageModel };
  }
  const settings = { apiKey, ...baseURL };
  const languageModel = new ProviderLanguageModel(native.name, slot.model, native.wire, transport, () =>
    native.load(settings, slot.model),
  );
  return { ...base, model: slot.model, offline: false, languageModel };
}

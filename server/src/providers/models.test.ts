import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_SLOTS, type SlotConfig, slotsFromEnv } from '../config/slots.js';
import { streamAnswer } from './call.js';
import { createSlotModel, ProviderLanguageModel } from './models.js';
import { OfflineLanguageModel } from './offline/model.js';

const KEYS = Object.fromEntries(DEFAULT_SLOTS.map((d) => [d.apiKeyEnv, `key-for-${d.provider}`]));

describe('createSlotModel', () => {
  it('without keys, every default slot runs the offline model and says so', () => {
    const models = slotsFromEnv({}).map((s) => createSlotModel(s, {}));
    expect(models.map((m) => [m.slot, m.provider, m.model, m.offline])).toEqual([
      [1, 'anthropic', 'offline-anthropic', true],
      [2, 'openai', 'offline-openai', true],
      [3, 'deepseek', 'offline-deepseek', true],
      [4, 'google', 'offline-google', true],
      [5, 'xai', 'offline-xai', true],
    ]);
    for (const m of models) expect(m.languageModel).toBeInstanceOf(OfflineLanguageModel);
  });

  it('with keys, each native provider gets its own SDK (OpenAI through Chat Completions)', () => {
    const models = slotsFromEnv(KEYS).map((s) => createSlotModel(s, KEYS));
    expect(models.map((m) => [m.languageModel.provider, m.languageModel.modelId, m.model, m.offline])).toEqual([
      ['anthropic.messages', 'claude-sonnet-4-5', 'claude-sonnet-4-5', false],
      ['openai.chat', 'gpt-4.1', 'gpt-4.1', false],
      ['deepseek.chat', 'deepseek-chat', 'deepseek-chat', false],
      ['google.generative-ai', 'gemini-2.5-flash', 'gemini-2.5-flash', false],
      ['xai.chat', 'grok-3-mini', 'grok-3-mini', false],
    ]);
  });

  it('names each model as its provider package does, before the package is loaded', async () => {
    const slots = [
      ...slotsFromEnv(KEYS),
      slotsFromEnv({ CONSILIUM_SLOT3_PROVIDER: 'lmstudio', CONSILIUM_SLOT3_BASE_URL: 'http://127.0.0.1:1234/v1' })[2]!,
    ];
    for (const slot of slots) {
      const lazy = createSlotModel(slot, KEYS).languageModel;
      expect(lazy).toBeInstanceOf(ProviderLanguageModel);
      const loaded = await (lazy as ProviderLanguageModel).loaded();
      expect([loaded.provider, loaded.modelId]).toEqual([lazy.provider, lazy.modelId]);
      expect(await lazy.supportedUrls).toEqual(await loaded.supportedUrls);
    }
  });

  it('a slot marked live whose key is missing from env falls back to offline rather than failing at call time', () => {
    const [anthropic] = slotsFromEnv(KEYS);
    expect(createSlotModel(anthropic!, {}).offline).toBe(true);
  });

  it('any other provider with a base URL is OpenAI-compatible, live without a key', () => {
    const slot = slotsFromEnv({
      CONSILIUM_SLOT3_PROVIDER: 'lmstudio',
      CONSILIUM_SLOT3_BASE_URL: 'http://127.0.0.1:1234/v1',
      CONSILIUM_SLOT3_MODEL: 'qwen2.5-7b',
    })[2]!;
    const m = createSlotModel(slot, {});
    expect(m).toMatchObject({ slot: 3, provider: 'lmstudio', model: 'qwen2.5-7b', offline: false });
    expect(m.languageModel.provider).toBe('lmstudio.chat');
  });

  it('refuses a configuration slotsFromEnv would not produce', () => {
    const base: SlotConfig = {
      slot: 1,
      provider: 'vllm',
      model: 'm',
      strength: 's',
      apiKeyEnv: 'K',
      api: 'openai-compatible',
      live: true,
    };
    expect(() => createSlotModel(base, {})).toThrow(ConfigError);
    expect(() => createSlotModel({ ...base, provider: 'mistral', api: 'native' }, { K: 'k' })).toThrow(ConfigError);
  });

  it('passes the offline pace through', () => {
    const m = createSlotModel(slotsFromEnv({})[3]!, {}, { offline: { tokenDelayMs: 0 } });
    expect((m.languageModel as OfflineLanguageModel).profile).toEqual({ firstTokenMs: 0, tokenMs: 0 });
  });

  it('sends live calls through a custom fetch, to the base URL of a proxy', async () => {
    const env = { ...KEYS, CONSILIUM_SLOT2_BASE_URL: 'https://proxy.example.com/openai/v1' };
    const urls: string[] = [];
    const recordingFetch: typeof fetch = async (input) => {
      urls.push(String(input instanceof Request ? input.url : input));
      return new Response(JSON.stringify({ error: { message: 'proxy says no', type: 'invalid_request_error' } }), {
        status: 400,
        headers: { 'content-type': 'application/json' },
      });
    };
    const m = createSlotModel(slotsFromEnv(env)[1]!, env, { fetch: recordingFetch });
    const r = await streamAnswer({ model: m, prompt: 'hi', timeoutMs: 5000 });
    expect(urls).toEqual(['https://proxy.example.com/openai/v1/chat/completions']);
    expect(r.error).toMatchObject({ code: 'upstream_error', status: 400, message: 'proxy says no' });
  });
});

describe('ProviderLanguageModel.template', () => {
  const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];

  /** A compatible slot's model whose SDK requests are counted (one SDK model each), and fail while `failing` is set. */
  function counted() {
    const env = { CONSILIUM_SLOT5_PROVIDER: 'local-llm', CONSILIUM_SLOT5_BASE_URL: 'http://127.0.0.1:9/v1' };
    const model = createSlotModel(slotsFromEnv(env)[4]!, env).languageModel as ProviderLanguageModel;
    const state = { builds: 0, failing: false };
    const withFetch = model.withFetch.bind(model);
    model.withFetch = (fetch) => {
      state.builds++;
      return state.failing ? Promise.reject(new Error('the SDK refused')) : withFetch(fetch);
    };
    return { model, state };
  }

  it('learns a shape once for every call waiting for it, and each shape apart', async () => {
    const { model, state } = counted();
    const [a, b] = await Promise.all([model.template('s1', {}, prompt), model.template('s1', {}, prompt)]);
    expect(a).toBeDefined();
    expect(b).toBe(a);
    expect(state.builds).toBe(2);
    const c = await model.template('s2', { maxOutputTokens: 7 }, prompt);
    expect(c?.body(['x'])).toContain('"max_tokens":7');
    expect(state.builds).toBe(4);
  });

  it('does not keep a failure to learn: the next call of the shape tries again', async () => {
    const { model, state } = counted();
    state.failing = true;
    await expect(model.template('s', {}, prompt)).rejects.toThrow('the SDK refused');
    state.failing = false;
    expect(await model.template('s', {}, prompt)).toBeDefined();
  });

  it('keeps at most 256 shapes, starting over past that', async () => {
    const { model, state } = counted();
    for (let i = 0; i < 257; i++) await model.template(`s${i}`, {}, prompt);
    expect(state.builds).toBe(2 * 257);
    await model.template('s256', {}, prompt);
    await model.template('s0', {}, prompt);
    expect(state.builds).toBe(2 * 258);
  });
});

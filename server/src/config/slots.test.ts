import { describe, expect, it } from 'vitest';
import { zSlotInfo } from '../generated/schemas/zod.gen.js';
import { DEFAULT_SLOTS, publicSlot, type SlotConfig, slotsFromEnv } from './slots.js';

const PROVIDER_ID = /^[a-z][a-z0-9-]{0,31}$/;
const OLLAMA = 'http://127.0.0.1:11434/v1';

describe('DEFAULT_SLOTS', () => {
  it('are five distinct native providers, each with its own key variable, model and strength', () => {
    expect(DEFAULT_SLOTS.map((d) => d.provider)).toEqual(['anthropic', 'openai', 'deepseek', 'google', 'xai']);
    expect(new Set(DEFAULT_SLOTS.map((d) => d.apiKeyEnv)).size).toBe(5);
    for (const d of DEFAULT_SLOTS) {
      expect(d.provider).toMatch(PROVIDER_ID);
      expect(d.model).not.toBe('');
      expect(d.strength).not.toBe('');
      expect(d.apiKeyEnv).toMatch(/^[A-Z][A-Z0-9_]*_API_KEY$/);
    }
  });
});

describe('slotsFromEnv defaults', () => {
  it('with no environment: slots 1–5, native, offline, the default key variables, no base URL', () => {
    const slots = slotsFromEnv({});
    expect(slots.map((s) => s.slot)).toEqual([1, 2, 3, 4, 5]);
    slots.forEach((s, i) => {
      expect(s).toEqual({ ...DEFAULT_SLOTS[i], slot: i + 1, api: 'native', live: false });
      expect(s).not.toHaveProperty('baseUrl');
    });
  });

  it('treats empty variables as unset', () => {
    const env: Record<string, string> = {};
    for (const n of [1, 2, 3, 4, 5]) {
      for (const key of ['PROVIDER', 'MODEL', 'STRENGTH', 'API_KEY_ENV', 'BASE_URL']) env[`CONSILIUM_SLOT${n}_${key}`] = '';
    }
    for (const d of DEFAULT_SLOTS) env[d.apiKeyEnv] = '';
    expect(slotsFromEnv(env)).toEqual(slotsFromEnv({}));
  });
});

describe('slotsFromEnv liveness', () => {
  it.each(DEFAULT_SLOTS.map((d, i) => [d.apiKeyEnv, i + 1] as const))('%s makes slot %i live, and only it', (key, slot) => {
    const slots = slotsFromEnv({ [key]: 'sk-test' });
    expect(slots.filter((s) => s.live).map((s) => s.slot)).toEqual([slot]);
  });

  it('a custom key variable replaces the default one', () => {
    const env = { CONSILIUM_SLOT2_API_KEY_ENV: 'MY_OPENAI_KEY' };
    expect(slotsFromEnv(env)[1]).toMatchObject({ apiKeyEnv: 'MY_OPENAI_KEY', live: false });
    expect(slotsFromEnv({ ...env, OPENAI_API_KEY: 'sk-test' })[1]!.live).toBe(false);
    expect(slotsFromEnv({ ...env, MY_OPENAI_KEY: 'sk-test' })[1]!.live).toBe(true);
  });

  it('an OpenAI-compatible slot is live without a key (a local server needs none)', () => {
    const [, , , , fifth] = slotsFromEnv({ CONSILIUM_SLOT5_PROVIDER: 'ollama-qwen', CONSILIUM_SLOT5_BASE_URL: OLLAMA });
    expect(fifth).toMatchObject({ provider: 'ollama-qwen', api: 'openai-compatible', live: true });
  });

  it('a native slot with a base URL (a proxy) stays native and still needs its key', () => {
    const env = { CONSILIUM_SLOT1_BASE_URL: 'https://proxy.example.com/anthropic' };
    expect(slotsFromEnv(env)[0]).toMatchObject({ api: 'native', baseUrl: env.CONSILIUM_SLOT1_BASE_URL, live: false });
    expect(slotsFromEnv({ ...env, ANTHROPIC_API_KEY: 'sk-test' })[0]!.live).toBe(true);
  });
});

describe('slotsFromEnv overrides', () => {
  it.each([1, 2, 3, 4, 5])('slot %i takes _MODEL, _STRENGTH, _API_KEY_ENV and _BASE_URL', (n) => {
    const env = {
      [`CONSILIUM_SLOT${n}_MODEL`]: `model-${n}`,
      [`CONSILIUM_SLOT${n}_STRENGTH`]: `strength ${n}`,
      [`CONSILIUM_SLOT${n}_API_KEY_ENV`]: `KEY_${n}`,
      [`CONSILIUM_SLOT${n}_BASE_URL`]: `https://proxy.example.com/${n}`,
      [`KEY_${n}`]: 'sk-test',
    };
    const slots = slotsFromEnv(env);
    expect(slots[n - 1]).toEqual({
      slot: n,
      provider: DEFAULT_SLOTS[n - 1]!.provider,
      model: `model-${n}`,
      strength: `strength ${n}`,
      apiKeyEnv: `KEY_${n}`,
      baseUrl: `https://proxy.example.com/${n}`,
      api: 'native',
      live: true,
    });
    // The other slots are untouched.
    expect(slots.filter((s) => s.slot !== n)).toEqual(slotsFromEnv({}).filter((s) => s.slot !== n));
  });

  it('an OpenAI-compatible provider: its model defaults to its name, its key to CONSILIUM_SLOT<N>_API_KEY', () => {
    const env = { CONSILIUM_SLOT4_PROVIDER: 'ollama-qwen', CONSILIUM_SLOT4_BASE_URL: OLLAMA };
    expect(slotsFromEnv(env)[3]).toEqual({
      slot: 4,
      provider: 'ollama-qwen',
      model: 'ollama-qwen',
      strength: DEFAULT_SLOTS[3]!.strength,
      apiKeyEnv: 'CONSILIUM_SLOT4_API_KEY',
      baseUrl: OLLAMA,
      api: 'openai-compatible',
      live: true,
    });
    expect(slotsFromEnv({ ...env, CONSILIUM_SLOT4_MODEL: 'qwen2.5:14b' })[3]!.model).toBe('qwen2.5:14b');
  });

  it('a native provider moved to another slot keeps its own model and key variable; the slot keeps its strength', () => {
    const slots = slotsFromEnv({
      CONSILIUM_SLOT1_PROVIDER: 'openai',
      CONSILIUM_SLOT2_PROVIDER: 'anthropic',
      OPENAI_API_KEY: 'k',
    });
    expect(slots[0]).toMatchObject({
      provider: 'openai',
      model: 'gpt-4.1',
      apiKeyEnv: 'OPENAI_API_KEY',
      strength: DEFAULT_SLOTS[0]!.strength,
      api: 'native',
      live: true,
    });
    expect(slots[1]).toMatchObject({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      live: false,
    });
  });
});

describe('slotsFromEnv rejections', () => {
  it.each(['Ollama', 'ollama_qwen', '1ollama', '-ollama', 'ollama qwen', 'a'.repeat(33)])('provider %j', (provider) => {
    expect(() => slotsFromEnv({ CONSILIUM_SLOT3_PROVIDER: provider, CONSILIUM_SLOT3_BASE_URL: OLLAMA })).toThrow(
      `CONSILIUM_SLOT3_PROVIDER must match ${PROVIDER_ID}, got "${provider}"`,
    );
  });

  it('accepts a provider id of exactly 32 characters', () => {
    const provider = `a${'b'.repeat(31)}`;
    expect(slotsFromEnv({ CONSILIUM_SLOT3_PROVIDER: provider, CONSILIUM_SLOT3_BASE_URL: OLLAMA })[2]!.provider).toBe(provider);
  });

  it.each(['not a url', '127.0.0.1:11434', 'localhost:11434/v1', 'ftp://example.com', '/v1'])('base URL %j', (url) => {
    expect(() => slotsFromEnv({ CONSILIUM_SLOT2_BASE_URL: url })).toThrow(
      `CONSILIUM_SLOT2_BASE_URL is not an http(s) URL: "${url}"`,
    );
  });

  it('an OpenAI-compatible provider without a base URL', () => {
    expect(() => slotsFromEnv({ CONSILIUM_SLOT5_PROVIDER: 'ollama-qwen' })).toThrow(
      'Slot 5 uses provider "ollama-qwen", which needs CONSILIUM_SLOT5_BASE_URL',
    );
  });

  it('a native provider in two slots', () => {
    expect(() => slotsFromEnv({ CONSILIUM_SLOT2_PROVIDER: 'anthropic' })).toThrow(
      'Provider "anthropic" is configured for two slots; each slot needs its own provider',
    );
  });

  it('one OpenAI-compatible provider in two slots', () => {
    const env = {
      CONSILIUM_SLOT4_PROVIDER: 'ollama-qwen',
      CONSILIUM_SLOT4_BASE_URL: OLLAMA,
      CONSILIUM_SLOT5_PROVIDER: 'ollama-qwen',
      CONSILIUM_SLOT5_BASE_URL: 'http://127.0.0.1:11435/v1',
    };
    expect(() => slotsFromEnv(env)).toThrow('Provider "ollama-qwen" is configured for two slots');
  });
});

describe('publicSlot', () => {
  const secretive: SlotConfig = {
    slot: 5,
    provider: 'ollama-qwen',
    model: 'qwen2.5:14b',
    strength: 'local and private',
    apiKeyEnv: 'MY_SECRET_KEY_VARIABLE',
    baseUrl: 'http://user:hunter2@10.0.0.7:11434/v1',
    api: 'openai-compatible',
    live: true,
  };

  it('shows exactly slot, provider, model, strength, status and api, and fits the contract', () => {
    const shown = publicSlot(secretive);
    expect(shown).toEqual({
      slot: 5,
      provider: 'ollama-qwen',
      model: 'qwen2.5:14b',
      strength: 'local and private',
      status: 'live',
      api: 'openai-compatible',
    });
    expect(zSlotInfo.strict().parse(shown)).toEqual(shown);
  });

  it('never exposes the key variable or the base URL', () => {
    const json = JSON.stringify(publicSlot(secretive));
    expect(json).not.toContain('apiKeyEnv');
    expect(json).not.toContain('MY_SECRET_KEY_VARIABLE');
    expect(json).not.toContain('baseUrl');
    expect(json).not.toContain('hunter2');
    expect(json).not.toContain('10.0.0.7');
  });

  it('says offline for a slot without a key, for every default slot', () => {
    for (const slot of slotsFromEnv({})) {
      const shown = publicSlot(slot);
      expect(shown.status).toBe('offline');
      expect(Object.keys(shown).sort()).toEqual(['api', 'model', 'provider', 'slot', 'status', 'strength']);
    }
  });
});

describe('per-slot model lists and context windows', () => {
  it('reads CONSILIUM_SLOT<N>_MODELS (trimmed, once each) and shows them in /providers; none by default', () => {
    const slots = slotsFromEnv({ CONSILIUM_SLOT2_MODELS: ' gpt-4.1-mini, o4-mini ,gpt-4.1-mini,' });
    expect(slots[1]!.models).toEqual(['gpt-4.1-mini', 'o4-mini']);
    expect(publicSlot(slots[1]!).models).toEqual(['gpt-4.1-mini', 'o4-mini']);
    expect(slots[0]!.models).toBeUndefined();
    expect(publicSlot(slots[0]!)).not.toHaveProperty('models');
  });

  it('reads CONSILIUM_SLOT<N>_CONTEXT_TOKENS and refuses one that is not a whole number from 1000 to 10000000', () => {
    expect(slotsFromEnv({ CONSILIUM_SLOT3_CONTEXT_TOKENS: '32000' })[2]!.contextTokens).toBe(32_000);
    expect(slotsFromEnv({})[2]!.contextTokens).toBeUndefined();
    for (const bad of ['999', '1e6', 'lots', '10000001']) {
      expect(() => slotsFromEnv({ CONSILIUM_SLOT3_CONTEXT_TOKENS: bad })).toThrow(
        /CONSILIUM_SLOT3_CONTEXT_TOKENS must be a whole number/,
      );
    }
  });
});

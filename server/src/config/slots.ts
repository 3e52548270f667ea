import type { SlotInfo } from '../../../sdk/src/generated/types.gen.js';

/** A setting that cannot work; the server refuses to start and says which and why. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** How one slot reaches its model. Keys are never stored here, only the variable that holds one. */
export interface SlotConfig {
  slot: 1 | 2 | 3 | 4 | 5;
  provider: string;
  model: string;
  strength: string;
  /** The environment variable holding the key. */
  apiKeyEnv: string;
  /** Set for OpenAI-compatible servers (Ollama, LM Studio, vLLM, OpenRouter) or a provider proxy. */
  baseUrl?: string;
  api: SlotInfo['api'];
  /** True when a key is present or a base URL points at a server that needs none. */
  live: boolean;
  /** Other models of the provider a request may ask this slot for (`CONSILIUM_SLOT<N>_MODELS`). */
  models?: string[];
  /** The model's context window in tokens (`CONSILIUM_SLOT<N>_CONTEXT_TOKENS`); a default per provider otherwise. */
  contextTokens?: number;
}

type Defaults = Pick<SlotConfig, 'provider' | 'model' | 'strength' | 'apiKeyEnv'>;

/** The product's default slots: five providers, each named for its strength. */
export const DEFAULT_SLOTS: readonly Defaults[] = [
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    strength: 'nuance and synthesis; writes the verdict',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
  },
  { provider: 'openai', model: 'gpt-4.1', strength: 'general reasoning', apiKeyEnv: 'OPENAI_API_KEY' },
  { provider: 'deepseek', model: 'deepseek-chat', strength: 'alternative viewpoints', apiKeyEnv: 'DEEPSEEK_API_KEY' },
  { provider: 'google', model: 'gemini-2.5-flash', strength: 'speed and analysis', apiKeyEnv: 'GOOGLE_GENERATIVE_AI_API_KEY' },
  { provider: 'xai', model: 'grok-3-mini', strength: 'creative thinking', apiKeyEnv: 'XAI_API_KEY' },
];

const PROVIDER_ID = /^[a-z][a-z0-9-]{0,31}$/;

/** What configures a slot: `CONSILIUM_SLOT<N>_<setting>`, and `_API_KEY`, where an OpenAI-compatible slot's key is by default. */
export const SLOT_SETTINGS = ['PROVIDER', 'MODEL', 'STRENGTH', 'API_KEY_ENV', 'BASE_URL', 'MODELS', 'CONTEXT_TOKENS', 'API_KEY'];

/**
 * A variable that can hold a key: its name says so (KEY, TOKEN, SECRET or PASSWORD in it), and it is none of the
 * service's own settings (another secret of its own, such as `CONSILIUM_METRICS_TOKEN`, would be sent to a provider).
 */
function keyVariable(name: string, slot: number): boolean {
  if (name === `CONSILIUM_SLOT${slot}_API_KEY`) return true;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && /KEY|TOKEN|SECRET|PASSWORD/i.test(name) && !/^CONSILIUM_/i.test(name);
}

/** Throws for a `CONSILIUM_SLOT…` variable no slot reads: a slot beyond five, or a setting misspelled. */
function refuseUnknownSlotSettings(env: Record<string, string | undefined>): void {
  for (const name of Object.keys(env)) {
    const m = /^CONSILIUM_SLOT(\d*)_?(.*)$/i.exec(name);
    if (!m || env[name] === undefined || env[name] === '') continue;
    const [, n = '', setting = ''] = m;
    if (!/^[1-5]$/.test(n)) {
      throw new ConfigError(`${name} is set, but there are five slots: CONSILIUM_SLOT1_… to CONSILIUM_SLOT5_…`);
    }
    if (!SLOT_SETTINGS.includes(setting)) {
      throw new ConfigError(`${name} is not a slot setting (CONSILIUM_SLOT${n}_ with ${SLOT_SETTINGS.join(', ')})`);
    }
  }
}

/**
 * Slot N is configured by `CONSILIUM_SLOT<N>_PROVIDER`, `_MODEL`, `_STRENGTH`, `_API_KEY_ENV` and
 * `_BASE_URL`. A `_BASE_URL` with a provider other than the five natives means OpenAI-compatible.
 */
export function slotsFromEnv(env: Record<string, string | undefined>): SlotConfig[] {
  refuseUnknownSlotSettings(env);
  const slots = DEFAULT_SLOTS.map((defaults, index): SlotConfig => {
    const slot = (index + 1) as SlotConfig['slot'];
    const get = (key: string) => env[`CONSILIUM_SLOT${slot}_${key}`] || undefined;
    const provider = get('PROVIDER') ?? defaults.provider;
    if (!PROVIDER_ID.test(provider)) {
      throw new ConfigError(`CONSILIUM_SLOT${slot}_PROVIDER must match ${PROVIDER_ID}, got "${provider}"`);
    }
    const baseUrl = get('BASE_URL');
    // http(s) only: `URL.canParse` also takes "localhost:11434/v1" (scheme "localhost:"), the usual missing-scheme slip.
    if (baseUrl !== undefined && !/^https?:$/.test(URL.parse(baseUrl)?.protocol ?? '')) {
      throw new ConfigError(`CONSILIUM_SLOT${slot}_BASE_URL is not an http(s) URL: "${baseUrl}"`);
    }
    // A native provider keeps its own model and key variable in whichever slot it is put.
    const native = DEFAULT_SLOTS.find((d) => d.provider === provider);
    const apiKeyEnv = get('API_KEY_ENV') ?? native?.apiKeyEnv ?? `CONSILIUM_SLOT${slot}_API_KEY`;
    if (!keyVariable(apiKeyEnv, slot)) {
      throw new ConfigError(
        `CONSILIUM_SLOT${slot}_API_KEY_ENV names "${apiKeyEnv}", which is no key's variable: name one whose name has KEY, TOKEN or SECRET in it (not a CONSILIUM_ setting)`,
      );
    }
    const api: SlotConfig['api'] = native ? 'native' : 'openai-compatible';
    if (api === 'openai-compatible' && baseUrl === undefined) {
      throw new ConfigError(`Slot ${slot} uses provider "${provider}", which needs CONSILIUM_SLOT${slot}_BASE_URL`);
    }
    const models = (get('MODELS') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m.length > 0);
    const context = get('CONTEXT_TOKENS');
    if (context !== undefined && !(/^\d+$/.test(context) && Number(context) >= 1000 && Number(context) <= 10_000_000)) {
      throw new ConfigError(
        `CONSILIUM_SLOT${slot}_CONTEXT_TOKENS must be a whole number from 1000 to 10000000, got "${context}"`,
      );
    }
    return {
      ...(models.length > 0 && { models: [...new Set(models)] }),
      ...(context !== undefined && { contextTokens: Number(context) }),
      slot,
      provider,
      model: get('MODEL') ?? native?.model ?? provider,
      strength: get('STRENGTH') ?? defaults.strength,
      apiKeyEnv,
      ...(baseUrl !== undefined && { baseUrl }),
      api,
      live: Boolean(env[apiKeyEnv]) || api === 'openai-compatible',
    };
  });
  const seen = new Set<string>();
  for (const s of slots) {
    if (seen.has(s.provider)) {
      throw new ConfigError(`Provider "${s.provider}" is configured for two slots; each slot needs its own provider`);
    }
    seen.add(s.provider);
  }
  return slots;
}

/** What `/providers` may show of a slot: never a key, never the key's variable. */
export function publicSlot(s: SlotConfig): SlotInfo {
  return {
    slot: s.slot,
    provider: s.provider,
    model: s.model,
    strength: s.strength,
    status: s.live ? 'live' : 'offline',
    api: s.api,
    ...(s.models && { models: [...s.models] }),
  };
}

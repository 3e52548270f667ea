/**
 * The wiki sources a debate may be grounded in: `CONSILIUM_WIKIS`, a JSON object of named sources, and each
 * source's bot password in a variable of its own (`CONSILIUM_WIKI_<NAME>_BOT_PASSWORD`), kept out of the JSON
 * so it can come from a secret store like the provider keys. Never logged or served.
 */
import { ConfigError } from './slots.js';

export interface WikiLimitsConfig {
  /** Pages retrieved before round 1. */
  pages: number;
  /** Most bytes of one page's text given to the models. */
  bytesPerPage: number;
  /** Most wiki tool calls one model may make in one critique round. */
  requestsPerRound: number;
  /** Most bytes of one wiki response read, per page it asks for (at least one); the rest is never read. */
  maxResponseBytes: number;
}

export interface WikiSourceConfig {
  name: string;
  /** The wiki's `api.php`. */
  api: string;
  userAgent: string;
  /** `User@botname` and its password (Special:BotPasswords), for a private wiki. */
  bot?: { user: string; password: string };
  limits: WikiLimitsConfig;
  /** How long one wiki request may take. */
  timeoutMs: number;
}

export const DEFAULT_WIKI_LIMITS: WikiLimitsConfig = {
  pages: 4,
  bytesPerPage: 4000,
  requestsPerRound: 3,
  maxResponseBytes: 1024 * 1024,
};
const DEFAULT_USER_AGENT = 'Consilium/0.1 (https://github.com/consilium; grounding a debate in a wiki)';
export const WIKI_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;

type Env = Record<string, string | undefined>;

const KEYS = new Set([
  'api',
  'userAgent',
  'botUser',
  'pages',
  'bytesPerPage',
  'requestsPerRound',
  'maxResponseBytes',
  'timeoutMs',
]);

function bounded(name: string, key: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`CONSILIUM_WIKIS: ${name}.${key} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** The variable holding a source's bot password: `team-wiki` → `CONSILIUM_WIKI_TEAM_WIKI_BOT_PASSWORD`. */
export function botPasswordVariable(name: string): string {
  return `CONSILIUM_WIKI_${name.toUpperCase().replaceAll('-', '_')}_BOT_PASSWORD`;
}

/** `CONSILIUM_WIKIS`: `{"team-wiki": {"api": "https://wiki.example/w/api.php", "pages": 4, …}}`; none by default. */
export function wikisFromEnv(env: Env): WikiSourceConfig[] {
  const raw = env.CONSILIUM_WIKIS;
  if (!raw || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('CONSILIUM_WIKIS must be a JSON object of named wiki sources');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('CONSILIUM_WIKIS must be a JSON object of named wiki sources');
  }
  return Object.entries(parsed as Record<string, unknown>).map(([name, value]) => {
    if (!WIKI_NAME.test(name)) {
      throw new ConfigError(
        `CONSILIUM_WIKIS: "${name}" is no source name (1–40 of a-z, 0-9, '-', starting with a letter or digit)`,
      );
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ConfigError(`CONSILIUM_WIKIS: ${name} must be an object with "api"`);
    }
    const v = value as Record<string, unknown>;
    for (const key of Object.keys(v)) {
      if (!KEYS.has(key)) throw new ConfigError(`CONSILIUM_WIKIS: ${name}.${key} is not a setting (${[...KEYS].join(', ')})`);
    }
    let api: URL | undefined;
    try {
      api = typeof v.api === 'string' ? new URL(v.api) : undefined;
    } catch {}
    if (!api || !/^https?:$/.test(api.protocol) || api.username || api.password) {
      throw new ConfigError(`CONSILIUM_WIKIS: ${name}.api must be the http(s) URL of the wiki's api.php, without credentials`);
    }
    const userAgent = v.userAgent ?? DEFAULT_USER_AGENT;
    if (typeof userAgent !== 'string' || !/^[\x20-\x7e]{1,300}$/.test(userAgent)) {
      throw new ConfigError(`CONSILIUM_WIKIS: ${name}.userAgent must be 1–300 printable ASCII characters`);
    }
    const password = env[botPasswordVariable(name)];
    if (password !== undefined && password !== '' && typeof v.botUser !== 'string') {
      throw new ConfigError(`CONSILIUM_WIKIS: ${name}.botUser (User@botname) is needed with ${botPasswordVariable(name)}`);
    }
    if (typeof v.botUser === 'string' && !password) {
      throw new ConfigError(`CONSILIUM_WIKIS: ${name}.botUser is set but ${botPasswordVariable(name)} is not`);
    }
    const source: WikiSourceConfig = {
      name,
      api: api.href,
      userAgent,
      limits: {
        pages: bounded(name, 'pages', v.pages, DEFAULT_WIKI_LIMITS.pages, 1, 20),
        bytesPerPage: bounded(name, 'bytesPerPage', v.bytesPerPage, DEFAULT_WIKI_LIMITS.bytesPerPage, 200, 100_000),
        requestsPerRound: bounded(name, 'requestsPerRound', v.requestsPerRound, DEFAULT_WIKI_LIMITS.requestsPerRound, 0, 20),
        maxResponseBytes: bounded(
          name,
          'maxResponseBytes',
          v.maxResponseBytes,
          DEFAULT_WIKI_LIMITS.maxResponseBytes,
          64 * 1024,
          64 * 1024 * 1024,
        ),
      },
      timeoutMs: bounded(name, 'timeoutMs', v.timeoutMs, 5000, 100, 120_000),
    };
    if (typeof v.botUser === 'string' && password) source.bot = { user: v.botUser, password };
    return source;
  });
}

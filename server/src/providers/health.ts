import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { APICallError } from '@ai-sdk/provider';
import type { SlotHealth } from '../../../sdk/src/generated/types.gen.js';
import type { SlotConfig } from '../config/slots.js';
import { classifyError } from './errors.js';
import { wholeResponse } from './transport.js';

/** How long one slot's check may take; the checks run at once, so this bounds the whole answer. */
const HEALTH_TIMEOUT_MS = 5000;

export interface HealthOptions {
  env: Record<string, string | undefined>;
  /** Replaces the `node:http` GET the check makes (see `nodeGet`). */
  fetch?: typeof fetch;
  timeoutMs?: number;
  now?: () => Date;
}

/** A request that costs no tokens: the provider's model list, with the key where it expects it. */
interface Probe {
  url: string;
  headers: Record<string, string>;
  /** The model ids the answer lists. */
  models: (body: unknown) => string[] | undefined;
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');
const bearer = (key: string | undefined): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});
/** `{ data: [{ id }] }`: OpenAI, xAI, DeepSeek, Anthropic, and the OpenAI-compatible servers. */
const dataIds = (body: unknown) => {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data.map((m) => String((m as { id?: unknown })?.id)) : undefined;
};
/** `{ models: [{ name: 'models/gemini-2.5-flash' }] }`. */
const geminiIds = (body: unknown) => {
  const models = (body as { models?: unknown } | null)?.models;
  return Array.isArray(models) ? models.map((m) => String((m as { name?: unknown })?.name).replace(/^models\//, '')) : undefined;
};

/** Each provider's free endpoint at its default address (or the slot's base URL, as its SDK would use it). */
function probeFor(slot: SlotConfig, key: string | undefined): Probe {
  const base = (fallback: string) => withoutTrailingSlash(slot.baseUrl ?? fallback);
  if (slot.api === 'openai-compatible') return { url: `${base('')}/models`, headers: bearer(key), models: dataIds };
  switch (slot.provider) {
    case 'anthropic':
      return {
        url: `${base('https://api.anthropic.com/v1')}/models?limit=1000`,
        headers: { 'x-api-key': key ?? '', 'anthropic-version': '2023-06-01' },
        models: dataIds,
      };
    case 'google':
      return {
        url: `${base('https://generativelanguage.googleapis.com/v1beta')}/models?pageSize=1000`,
        headers: { 'x-goog-api-key': key ?? '' },
        models: geminiIds,
      };
    case 'deepseek':
      return { url: `${base('https://api.deepseek.com')}/models`, headers: bearer(key), models: dataIds };
    case 'xai':
      return { url: `${base('https://api.x.ai/v1')}/models`, headers: bearer(key), models: dataIds };
    default:
      return { url: `${base('https://api.openai.com/v1')}/models`, headers: bearer(key), models: dataIds };
  }
}

/**
 * A GET over `node:http(s)`, as the debate's own calls go (`transport.ts`), so the check sees what a call would: the
 * global `fetch` refuses ports the Fetch standard blocks (6000, 6665–6669, 10080, …) with a bare "fetch failed",
 * where a call to the same address works.
 */
function nodeGet(url: string, init: { headers: Record<string, string>; signal: AbortSignal }): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = (url.startsWith('https:') ? httpsRequest : httpRequest)(
      url,
      { method: 'GET', headers: init.headers, signal: init.signal },
      (res) => wholeResponse(res).then(resolve, reject),
    );
    request.on('error', reject);
    request.end();
  });
}

/** The URL without credentials or query, to show. */
const redactedUrl = (url: string) => {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  u.search = '';
  return u.toString();
};

/**
 * Asks one slot's endpoint whether it answers, how fast, and whether it lists the slot's model.
 * Offline slots are not asked. Never throws: a failure is reported with the code a failed answer
 * would carry (`connection_refused`, `auth_failed`, …).
 */
export async function checkSlot(slot: SlotConfig, options: HealthOptions): Promise<SlotHealth> {
  const now = options.now ?? (() => new Date());
  if (!slot.live) return { status: 'offline', checkedAt: now().toISOString() };
  const key = options.env[slot.apiKeyEnv] || undefined;
  const probe = probeFor(slot, key);
  const endpoint = redactedUrl(probe.url);
  const timeoutMs = options.timeoutMs ?? HEALTH_TIMEOUT_MS;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(timeoutMs);
  // Error texts may quote the URL (credentials in it) or, from a proxy, the key.
  const secrets = [key, new URL(probe.url).username, new URL(probe.url).password].filter((x): x is string => !!x && x.length > 1);
  const redact = <T extends { message: string }>(error: T): T => ({
    ...error,
    message: secrets.reduce((text, secret) => text.replaceAll(secret, '***'), error.message),
  });
  try {
    const init = { headers: { accept: 'application/json', ...probe.headers }, signal };
    const res = await (options.fetch ? options.fetch(probe.url, init) : nodeGet(probe.url, init));
    const text = await res.text();
    const latencyMs = elapsed();
    const checkedAt = now().toISOString();
    if (!res.ok) {
      const error = classifyError(
        new APICallError({
          message: `HTTP ${res.status}${text ? `: ${text.slice(0, 300)}` : ''}`,
          url: endpoint,
          requestBodyValues: {},
          statusCode: res.status,
          responseHeaders: Object.fromEntries(res.headers),
        }),
      );
      const { retryable: _, ...reported } = error;
      return { status: 'failing', endpoint, latencyMs, error: redact(reported), checkedAt };
    }
    let ids: string[] | undefined;
    try {
      ids = probe.models(JSON.parse(text));
    } catch {
      ids = undefined;
    }
    return { status: 'ok', endpoint, latencyMs, ...(ids && { modelFound: ids.includes(slot.model) }), checkedAt };
  } catch (cause) {
    const latencyMs = elapsed();
    const checkedAt = now().toISOString();
    if (signal.aborted) {
      const error = { code: 'timeout' as const, message: `No answer within ${timeoutMs} ms` };
      return { status: 'failing', endpoint, latencyMs, error, checkedAt };
    }
    const { retryable: _, ...error } = classifyError(cause);
    return { status: 'failing', endpoint, latencyMs, error: redact(error), checkedAt };
  }
}

/** Every slot's check, all at once; bounded by the per-slot timeout. */
export function checkSlots(slots: readonly SlotConfig[], options: HealthOptions): Promise<SlotHealth[]> {
  return Promise.all(slots.map((slot) => checkSlot(slot, options)));
}

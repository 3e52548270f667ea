import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slotsFromEnv } from '../config/slots.js';
import { checkSlot, checkSlots } from './health.js';

/** A loopback stand-in for every provider's model list; records what it was asked. */
let server: Server;
let base: string;
const seen: { url: string; headers: IncomingMessage['headers'] }[] = [];
/** Requests to `/stall/` held open now, and the most held at once. */
let stalled = 0;
let mostStalled = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url!, headers: req.headers });
    const path = req.url!;
    if (path.startsWith('/stall/')) {
      // Never answers; held until the client gives up.
      mostStalled = Math.max(mostStalled, ++stalled);
      res.once('close', () => stalled--);
      return;
    }
    if (path.startsWith('/bad-key/')) {
      res.writeHead(401, { 'content-type': 'application/json', 'request-id': 'req_health_1' });
      res.end('{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}');
      return;
    }
    if (path.startsWith('/down/')) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream connect error');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (path.startsWith('/gemini/')) res.end(JSON.stringify({ models: [{ name: 'models/gemini-2.5-flash' }] }));
    else res.end(JSON.stringify({ object: 'list', data: [{ id: 'claude-sonnet-4-5' }, { id: 'gpt-4.1' }, { id: 'qwen2.5' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const last = () => seen.at(-1)!;

describe('checkSlot asks each provider its free model list, with the key where it expects it', () => {
  it('anthropic: GET /v1/models, x-api-key and anthropic-version', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant', CONSILIUM_SLOT1_BASE_URL: `${base}/anthropic/v1` };
    const health = await checkSlot(slotsFromEnv(env)[0]!, { env });
    expect(health).toMatchObject({ status: 'ok', endpoint: `${base}/anthropic/v1/models`, modelFound: true });
    expect(health.latencyMs).toBeGreaterThanOrEqual(0);
    expect(last().url).toBe('/anthropic/v1/models?limit=1000');
    expect(last().headers).toMatchObject({ 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01' });
  });

  it('openai, deepseek and xai: GET …/models with a bearer key', async () => {
    const env = {
      OPENAI_API_KEY: 'sk-oai',
      DEEPSEEK_API_KEY: 'sk-ds',
      XAI_API_KEY: 'sk-xai',
      CONSILIUM_SLOT2_BASE_URL: `${base}/openai/v1`,
      CONSILIUM_SLOT3_BASE_URL: `${base}/deepseek`,
      CONSILIUM_SLOT5_BASE_URL: `${base}/xai/v1/`,
    };
    const slots = slotsFromEnv(env);
    expect(await checkSlot(slots[1]!, { env })).toMatchObject({ status: 'ok', modelFound: true });
    expect(last()).toMatchObject({ url: '/openai/v1/models', headers: { authorization: 'Bearer sk-oai' } });
    // Listed models that do not include the slot's own: the endpoint answers, the model is missing.
    expect(await checkSlot(slots[2]!, { env })).toMatchObject({ status: 'ok', modelFound: false });
    expect(last()).toMatchObject({ url: '/deepseek/models', headers: { authorization: 'Bearer sk-ds' } });
    expect(await checkSlot(slots[4]!, { env })).toMatchObject({ status: 'ok', modelFound: false });
    expect(last()).toMatchObject({ url: '/xai/v1/models', headers: { authorization: 'Bearer sk-xai' } });
  });

  it('google: GET /v1beta/models with x-goog-api-key; names are read without their models/ prefix', async () => {
    const env = { GOOGLE_GENERATIVE_AI_API_KEY: 'g-key', CONSILIUM_SLOT4_BASE_URL: `${base}/gemini/v1beta` };
    expect(await checkSlot(slotsFromEnv(env)[3]!, { env })).toMatchObject({ status: 'ok', modelFound: true });
    expect(last()).toMatchObject({ url: '/gemini/v1beta/models?pageSize=1000', headers: { 'x-goog-api-key': 'g-key' } });
  });

  it('an OpenAI-compatible server: its base URL + /models, no key needed', async () => {
    const env = {
      CONSILIUM_SLOT5_PROVIDER: 'ollama',
      CONSILIUM_SLOT5_BASE_URL: `${base}/ollama/v1`,
      CONSILIUM_SLOT5_MODEL: 'qwen2.5',
    };
    expect(await checkSlot(slotsFromEnv(env)[4]!, { env })).toMatchObject({ status: 'ok', modelFound: true });
    expect(last().url).toBe('/ollama/v1/models');
    expect(last().headers.authorization).toBeUndefined();
  });

  it('a server on a port the Fetch standard blocks is reached, as the debate calls reach it', async () => {
    // `fetch` refuses these ports ("bad port"); the calls go over node:http and do not. Some free one is needed.
    const blocked = [10080, 6665, 6666, 6667, 6668, 6669, 6566, 6697];
    const onPort = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"qwen2.5"}]}');
    });
    let port: number | undefined;
    for (const candidate of blocked) {
      const bound = await new Promise<boolean>((resolve) => {
        onPort.once('error', () => resolve(false));
        onPort.listen(candidate, '127.0.0.1', () => resolve(true));
      });
      if (bound) {
        port = candidate;
        break;
      }
    }
    expect(port, `none of the ports ${blocked.join(', ')} was free`).toBeDefined();
    try {
      await expect(fetch(`http://127.0.0.1:${port}/v1/models`)).rejects.toThrow('fetch failed');
      const env = {
        CONSILIUM_SLOT5_PROVIDER: 'local',
        CONSILIUM_SLOT5_BASE_URL: `http://127.0.0.1:${port}/v1`,
        CONSILIUM_SLOT5_MODEL: 'qwen2.5',
      };
      expect(await checkSlot(slotsFromEnv(env)[4]!, { env })).toMatchObject({ status: 'ok', modelFound: true });
    } finally {
      await new Promise((r) => onPort.close(r));
    }
  });
});

describe('checkSlot failures', () => {
  it('an offline slot is not asked', async () => {
    const before = seen.length;
    const health = await checkSlot(slotsFromEnv({})[0]!, { env: {}, now: () => new Date('2026-01-02T03:04:05Z') });
    expect(health).toEqual({ status: 'offline', checkedAt: '2026-01-02T03:04:05.000Z' });
    expect(seen.length).toBe(before);
  });

  it('a dead local URL is failing with connection_refused, never healthy', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((r) => dead.close(r));
    const env = { CONSILIUM_SLOT5_PROVIDER: 'local', CONSILIUM_SLOT5_BASE_URL: `http://127.0.0.1:${port}/v1` };
    const health = await checkSlot(slotsFromEnv(env)[4]!, { env });
    expect(health).toMatchObject({
      status: 'failing',
      endpoint: `http://127.0.0.1:${port}/v1/models`,
      error: { code: 'connection_refused' },
    });
    expect(health.error!.message).toContain(`127.0.0.1:${port}`);
  });

  it('a refused key is auth_failed with the status and the provider request id', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-wrong', CONSILIUM_SLOT1_BASE_URL: `${base}/bad-key/v1` };
    const health = await checkSlot(slotsFromEnv(env)[0]!, { env });
    expect(health).toMatchObject({
      status: 'failing',
      error: { code: 'auth_failed', status: 401, providerRequestId: 'req_health_1' },
    });
    expect(health.error!.message).toContain('invalid x-api-key');
    expect(health.error).not.toHaveProperty('retryable');
  });

  it('a 5xx is upstream_error with its status', async () => {
    const env = { CONSILIUM_SLOT5_PROVIDER: 'gw', CONSILIUM_SLOT5_BASE_URL: `${base}/down/v1` };
    expect(await checkSlot(slotsFromEnv(env)[4]!, { env })).toMatchObject({
      status: 'failing',
      error: { code: 'upstream_error', status: 503, message: 'HTTP 503: upstream connect error' },
    });
  });

  it('the key never appears in what is reported', async () => {
    const env = {
      CONSILIUM_SLOT5_PROVIDER: 'gw',
      CONSILIUM_SLOT5_BASE_URL: `http://user:pw@127.0.0.1:1/v1`,
      CONSILIUM_SLOT5_API_KEY: 'sk-secret',
    };
    const health = await checkSlot(slotsFromEnv(env)[4]!, { env });
    expect(JSON.stringify(health)).not.toMatch(/sk-secret|user:pw/);
  });
});

describe('checkSlots', () => {
  it('checks every slot at once, each bounded by the timeout', async () => {
    const env: Record<string, string> = {};
    for (const n of [1, 2, 3, 4, 5]) {
      env[`CONSILIUM_SLOT${n}_PROVIDER`] = `stalled-${n}`;
      env[`CONSILIUM_SLOT${n}_BASE_URL`] = `${base}/stall/${n}/v1`;
    }
    mostStalled = 0;
    const health = await checkSlots(slotsFromEnv(env), { env, timeoutMs: 400 });
    expect(health.map((h) => [h.status, h.error?.code])).toEqual(Array(5).fill(['failing', 'timeout']));
    for (const h of health) expect(h.latencyMs).toBeGreaterThanOrEqual(390);
    // All five asked at once: the stand-in held five requests open together (in series, one at a time).
    expect(mostStalled).toBe(5);
  });
});

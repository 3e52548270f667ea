import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { beforeFirstTest } from '../../../test/support/lazy.js';
import { rawRequest } from '../../../test/support/raw-http.js';
import { type RunningServer, startServer } from '../../../test/support/server.js';
import { type HostName, hostCheck, hostNames, parseHost } from './host-check.js';

describe('host names', () => {
  it('parses name and port, lowercases, drops a trailing dot, refuses what is not a host', () => {
    expect(parseHost('LocalHost.:8787')).toEqual({ hostname: 'localhost', port: 8787 });
    expect(parseHost('[::1]:80')).toEqual({ hostname: '[::1]', port: 80 });
    expect(parseHost('example.com')).toEqual({ hostname: 'example.com', port: undefined });
    for (const bad of ['', 'a b', 'user@host', 'host/path', '::1', 'h:x']) expect(parseHost(bad), bad).toBeUndefined();
  });

  it('are loopback on the local port, a specific listening address, the public origin and the extra hosts', () => {
    const names = hostNames({
      listenHost: '10.0.0.5',
      publicOrigin: new URL('https://consilium.example.com'),
      allowedHosts: ['intranet:9000', 'box'],
    });
    expect(names).toEqual([
      { hostname: '127.0.0.1', port: 'local' },
      { hostname: 'localhost', port: 'local' },
      { hostname: '[::1]', port: 'local' },
      { hostname: '10.0.0.5', port: 'local' },
      { hostname: 'consilium.example.com', port: 443 },
      { hostname: 'intranet', port: 9000 },
      { hostname: 'box', port: undefined },
    ]);
    expect(hostNames({ listenHost: '0.0.0.0', allowedHosts: [] })).toHaveLength(3);
  });

  it('a wildcard or loopback listening address adds nothing; a specific IPv6 one is bracketed once', () => {
    for (const listenHost of ['', '0.0.0.0', '::', '[::]', '127.0.0.1', 'LOCALHOST', '::1', '[::1]']) {
      expect(hostNames({ listenHost, allowedHosts: [] }), listenHost).toHaveLength(3);
    }
    expect(hostNames({ listenHost: 'fd00::5', allowedHosts: [] })[3]).toEqual({ hostname: '[fd00::5]', port: 'local' });
    expect(hostNames({ listenHost: '[FD00::6]', allowedHosts: [] })[3]).toEqual({ hostname: '[fd00::6]', port: 'local' });
  });

  it('the public origin on its own port, else its scheme’s; extra hosts that are no host are skipped', () => {
    const at = (origin: string) => hostNames({ listenHost: '0.0.0.0', publicOrigin: new URL(origin), allowedHosts: [] })[3];
    expect(at('http://Public.Example')).toEqual({ hostname: 'public.example', port: 80 });
    expect(at('https://public.example')).toEqual({ hostname: 'public.example', port: 443 });
    expect(at('https://public.example:8443')).toEqual({ hostname: 'public.example', port: 8443 });
    expect(hostNames({ listenHost: '0.0.0.0', allowedHosts: ['not a host', 'ok'] }).slice(3)).toEqual([
      { hostname: 'ok', port: undefined },
    ]);
  });
});

describe('hostCheck', () => {
  const names: HostName[] = [
    { hostname: 'localhost', port: 'local' },
    { hostname: 'anyport', port: undefined },
    { hostname: 'intranet', port: 9000 },
    { hostname: 'plain', port: 80 },
    { hostname: 'secure', port: 443 },
  ];
  /** The status and problem detail for `Host: host`, on a connection whose local port is `localPort` (none: not known). */
  async function check(host: string | undefined, env?: unknown, allowAny?: boolean) {
    const app = new Hono();
    app.use(allowAny === undefined ? hostCheck(names) : hostCheck(names, allowAny));
    app.get('*', (c) => c.text('ok'));
    app.onError((error, c) => c.text(`error: ${error.message}`, 500));
    const res = await app.request('http://x/health', { headers: host === undefined ? {} : { host } }, env as object);
    const text = await res.text();
    return { status: res.status, detail: res.status === 421 ? (JSON.parse(text) as { detail: string }).detail : text };
  }
  const socket = (localPort: number) => ({ incoming: { socket: { localPort } } });

  it('a name with port `local` answers on the port the connection reached, or any when that is not known', async () => {
    expect((await check('localhost:8787', socket(8787))).status).toBe(200);
    expect((await check('localhost:8788', socket(8787))).status).toBe(421);
    expect((await check('localhost', socket(80))).status).toBe(200);
    for (const env of [undefined, {}, { incoming: {} }, { incoming: { socket: {} } }]) {
      expect(await check('localhost:8788', env), JSON.stringify(env)).toEqual({ status: 200, detail: 'ok' });
    }
  });

  it('a name without a port answers on any; one with a port on it only, or with none sent only for 443', async () => {
    expect((await check('anyport:5555', socket(1))).status).toBe(200);
    expect((await check('anyport', socket(1))).status).toBe(200);
    expect((await check('intranet:9000', socket(1))).status).toBe(200);
    expect((await check('intranet', socket(1))).status).toBe(421);
    expect((await check('plain', socket(1))).status).toBe(200);
    expect((await check('plain:80', socket(1))).status).toBe(200);
    expect((await check('secure', socket(1))).status).toBe(200);
    expect((await check('secure:443', socket(1))).status).toBe(200);
    expect((await check('secure:80', socket(1))).status).toBe(421);
  });

  it('says which host it refused, up to 100 characters, and how to allow it', async () => {
    const advice = 'add it to CONSILIUM_ALLOWED_HOSTS or set CONSILIUM_PUBLIC_ORIGIN.';
    expect(await check('evil.example', socket(1))).toEqual({
      status: 421,
      detail: `This server does not answer to the host "evil.example"; ${advice}`,
    });
    expect(await check(undefined, socket(1))).toEqual({
      status: 421,
      detail: `This server does not answer to the host ""; ${advice}`,
    });
    const long = `${'a'.repeat(150)}.example`;
    expect((await check(long, socket(1))).detail).toBe(`This server does not answer to the host "${'a'.repeat(100)}"; ${advice}`);
  });

  it('is on unless told otherwise', async () => {
    expect((await check('evil.example', socket(1), false)).status).toBe(421);
    expect((await check('evil.example', socket(1), true)).status).toBe(200);
    expect((await check(undefined, socket(1), true)).status).toBe(200);
  });
});

describe('Host check over HTTP', () => {
  let server: RunningServer;
  let port: number;
  beforeFirstTest(async () => {
    server = await startServer({ CONSILIUM_PUBLIC_ORIGIN: 'https://consilium.example.com', CONSILIUM_ALLOWED_HOSTS: 'box:1234' });
    port = Number(new URL(server.baseUrl).port);
  });
  afterAll(() => server?.close());

  const get = (host: string, path = '/health') => rawRequest(`${server.baseUrl}${path}`, { headers: { host } });

  it('answers to loopback names on its own port, the public origin and the extra hosts', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `LOCALHOST.:${port}`,
      'consilium.example.com',
      'consilium.example.com:443',
      'box:1234',
    ]) {
      expect((await get(host)).status, host).toBe(200);
    }
  });

  it('refuses any other Host with 421 host_not_allowed, on every path (DNS rebinding)', async () => {
    const wrong = [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1:${port + 1}`,
      'localhost',
      `127.0.0.1.evil.example:${port}`,
      'consilium.example.com:8443',
      'box:1235',
    ];
    for (const host of wrong) {
      for (const path of ['/health', '/sessions', '/openapi.json', '/nope']) {
        const res = await get(host, path);
        expect(res.status, `${host} ${path}`).toBe(421);
        expect(res.headers['content-type']).toBe('application/problem+json');
        expect(JSON.parse(res.body)).toMatchObject({ status: 421, code: 'host_not_allowed', instance: path });
      }
    }
  });

  it('writes nothing for a refused request', async () => {
    const res = await rawRequest(`${server.baseUrl}/consilium`, {
      method: 'POST',
      headers: { ...server.headers, host: 'evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Rebound?' }),
    });
    expect(res.status).toBe(421);
    const list = await (await server.fetch(`/sessions`)).json();
    expect(list.items).toEqual([]);
  });

  it('CONSILIUM_ALLOWED_HOSTS=* turns the check off', async () => {
    const open = await startServer({ CONSILIUM_ALLOWED_HOSTS: '*' });
    try {
      expect((await rawRequest(`${open.baseUrl}/health`, { headers: { host: 'evil.example' } })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

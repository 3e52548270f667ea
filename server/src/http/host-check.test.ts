import { afterAll, describe, expect, it } from 'vitest';
import { beforeFirstTest } from '../../../test/support/lazy.js';
import { rawRequest } from '../../../test/support/raw-http.js';
import { type RunningServer, startServer } from '../../../test/support/server.js';
import { hostNames, parseHost } from './host-check.js';

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

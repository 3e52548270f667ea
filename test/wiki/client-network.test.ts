/**
 * WikiClient when the wiki does not answer as an API: a real HTTP server on loopback that never answers,
 * a port nobody listens on, an overloaded wiki (`503` with `Retry-After`, then an answer) and a proxy's
 * HTML error page. Each ends in a `WikiApiError` with a code to branch on, or in the answer after a wait.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { allpages } from '../../sdk/src/generated/wiki/allpages.js';
import { WikiApiError, WikiClient } from '../../sdk/src/wiki/client.js';
import { query } from '../../sdk/src/wiki/query.js';

const UA = 'ConsiliumTests/0.1 (https://example.org/consilium; tests@example.org)';
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/w/api.php`;
}

async function failure(promise: Promise<unknown>): Promise<WikiApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WikiApiError);
  return error as WikiApiError;
}

const q = query({ list: [allpages({ limit: 2 })] });
const answer = JSON.stringify({ batchcomplete: true, query: { allpages: [{ pageid: 1, ns: 0, title: 'Alpha' }] } });

describe('WikiClient without an API answer', () => {
  it('gives up on a wiki that never answers after `timeout`, with code timeout', async () => {
    const apiUrl = await serve(() => {
      // Never answers.
    });
    const client = new WikiClient({ apiUrl, userAgent: UA, timeout: 200, site: false });
    const error = await failure(client.request(q));
    expect(error.code).toBe('timeout');
    expect(error.info).toBe(`${apiUrl} did not answer within 200 ms.`);
  });

  it('passes the caller’s own abort on as it is, not as a timeout', async () => {
    const apiUrl = await serve(() => {});
    const client = new WikiClient({ apiUrl, userAgent: UA, site: false });
    const reason = new Error('stopped by the caller');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 50);
    await expect(client.request(q, { signal: controller.signal })).rejects.toBe(reason);
  });

  it('says network, with the cause, when nothing listens', async () => {
    const apiUrl = await serve(() => {});
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const client = new WikiClient({ apiUrl, userAgent: UA, site: false });
    const error = await failure(client.request(q));
    expect(error.code).toBe('network');
    expect(error.info).toMatch(/could not be reached: .*ECONNREFUSED/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('waits out an overloaded wiki’s 503 with Retry-After, then reads the answer', async () => {
    let calls = 0;
    const apiUrl = await serve((_req, res) => {
      calls++;
      if (calls === 1) res.writeHead(503, { 'retry-after': '7', 'content-type': 'text/html' }).end('<html>busy</html>');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
    const waits: number[] = [];
    const client = new WikiClient({ apiUrl, userAgent: UA, site: false, sleep: async (ms) => void waits.push(ms) });
    const batch = await client.request(q);
    expect(batch.query).toEqual({ allpages: [{ pageid: 1, ns: 0, title: 'Alpha' }] });
    expect(waits).toEqual([7000]);
    expect(calls).toBe(2);
  });

  it('says what a 5xx HTML page is, without blaming the address; a 404 page still asks about it', async () => {
    const apiUrl = await serve((req, res) => {
      res.writeHead(req.url?.startsWith('/w/api.php') ? 502 : 404, { 'content-type': 'text/html' }).end('<html>no</html>');
    });
    const client = new WikiClient({ apiUrl, userAgent: UA, site: false, maxRetries: 0 });
    const bad = await failure(client.request(q));
    expect(bad).toMatchObject({ code: 'http', status: 502 });
    expect(bad.info).toBe('HTTP 502 Bad Gateway (an HTML error page, from the wiki or a proxy in front of it)');
    const wrong = new WikiClient({ apiUrl: apiUrl.replace('/w/api.php', '/wiki/Main_Page'), userAgent: UA, site: false });
    expect((await failure(wrong.request(q))).info).toMatch(/^HTTP 404 Not Found: .* is it the wiki's api\.php/);
  });

  it('takes the generator’s SiteContext snapshot as `site`, and validates against it', async () => {
    const apiUrl = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
    const site = { namespaces: [{ id: 0, name: '', canonical: '' }] };
    const client = new WikiClient({ apiUrl, userAgent: UA, site });
    expect(await client.site()).toEqual({ site, apihighlimits: false });
    await expect(client.build({ list: [allpages({ namespace: 9999 })] })).rejects.toMatchObject({ code: 'badvalue' });
  });
});

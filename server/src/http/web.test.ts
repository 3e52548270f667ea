import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { mountWeb } from './web.js';

const root = mkdtempSync(join(tmpdir(), 'consilium-web-'));
mkdirSync(join(root, 'assets'));
const INDEX = '<!doctype html><script type="module" src="/assets/app-1.js"></script>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;
writeFileSync(join(root, 'index.html'), INDEX);
writeFileSync(join(root, 'assets/app-1.js'), SCRIPT);
writeFileSync(join(root, '.build-stamp'), 'hash');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const app = new Hono();
mountWeb(app, root);
app.notFound((c) => c.text('api 404', 404));

describe('mountWeb', () => {
  it('serves index.html at / with revalidation, and never the build stamp', async () => {
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toBe(INDEX);
    expect((await app.request('/.build-stamp')).status).toBe(404);
  });

  it('serves hashed assets as immutable, gzipped when accepted, 304 on a matching etag', async () => {
    const plain = await app.request('/assets/app-1.js');
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('cache-control')).toContain('immutable');
    expect(await plain.text()).toBe(SCRIPT);
    const gz = await app.request('/assets/app-1.js', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(SCRIPT);
    const etag = plain.headers.get('etag')!;
    expect((await app.request('/assets/app-1.js', { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('leaves every other path to the API', async () => {
    expect(await (await app.request('/assets/missing.js')).text()).toBe('api 404');
    expect(await (await app.request('/sessions')).text()).toBe('api 404');
  });

  it('says how to build the UI when there is no build', async () => {
    const bare = new Hono();
    mountWeb(bare, join(root, 'nowhere'));
    const res = await bare.request('/');
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm start');
  });
});

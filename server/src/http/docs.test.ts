/**
 * `/docs/` is found from where the server's code lives, not from the working directory: the bundle `npm start` runs
 * is started here from a temporary directory, as an operator may, and must still serve the reference. `/docs/sdk/`
 * says so while the SDK reference is being built, and serves it once it is whole.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildHttpReference, HTTP_REFERENCE_DIR } from '../../../docs/src/build-http.js';
import { claimSdkReferenceBuild } from '../../../docs/src/sdk-build.js';
import { envWith, ROOT } from '../../../test/support/process.js';
import { startServer } from '../../../test/support/server.js';
import { bundleServer } from '../../build.js';
import type { AppEnv } from './deps.js';
import { defaultDocsDir, mountDocs } from './docs.js';

let elsewhere: string;
let bundle: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  if (!existsSync(join(HTTP_REFERENCE_DIR, 'index.html'))) buildHttpReference();
  elsewhere = mkdtempSync(join(tmpdir(), 'consilium-cwd-'));
  // Beside `dist/server.mjs`, as the real bundle is, under a name of its own so no concurrent `npm start` is disturbed.
  bundle = await bundleServer(join(ROOT, `dist/server-docs-test-${process.pid}.mjs`));
}, 60_000);

afterAll(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  rmSync(bundle, { force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

it('the bundle started from another directory serves /docs/', async () => {
  child = spawn(process.execPath, [bundle], {
    cwd: elsewhere,
    env: envWith(join(elsewhere, 'data'), { PORT: '0', CONSILIUM_ADMIN_PASSWORD: 'docs-test-password-1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  const deadline = Date.now() + 30_000;
  let url: string | undefined;
  while (!url) {
    url = /is serving (http:\/\/\S+)\n/.exec(out)?.[1];
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const res = await fetch(`${url}/docs`);
  expect(res.url).toBe(`${url}/docs/`);
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await res.text()).toContain('<html');
  const css = await fetch(`${url}/docs/reference.css`);
  expect(css.status).toBe(200);
});

it('running from source, the reference is the repository’s whatever the working directory', async () => {
  expect(defaultDocsDir()).toBe(`${HTTP_REFERENCE_DIR}/`);
  const server = await startServer();
  const before = process.cwd();
  try {
    process.chdir(elsewhere);
    const res = await fetch(`${server.baseUrl}/docs/`);
    expect(res.status).toBe(200);
  } finally {
    process.chdir(before);
    await server.close();
  }
});

it('/docs/sdk/ says the SDK reference is being built while it is, then serves it once whole', async () => {
  const root = mkdtempSync(join(tmpdir(), 'consilium-docs-'));
  try {
    const app = new Hono<AppEnv>();
    mountDocs(app, join(root, 'docs/api/http'));
    mkdirSync(join(root, 'docs/api'), { recursive: true });
    expect((await (await app.request('/docs/sdk/')).json()) as { detail: string }).toMatchObject({
      detail: 'The SDK reference is not built: run `npm run docs`.',
    });

    const command = (out: string) => ({
      file: process.execPath,
      args: [
        '-e',
        `require('node:fs').mkdirSync(${JSON.stringify(out)}); require('node:fs').writeFileSync(${JSON.stringify(join(out, 'index.html'))}, '<h1>Consilium SDK</h1>')`,
      ],
    });
    const claim = claimSdkReferenceBuild({ root, command })!;
    const page = await app.request('/docs/sdk/');
    expect(page.status).toBe(503);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('retry-after')).toBe('10');
    const html = await page.text();
    expect(html).toContain('The SDK reference is being built');
    expect(html).toContain('<meta http-equiv="refresh" content="10">');
    const asset = await app.request('/docs/sdk/assets/main.js');
    expect(asset.status).toBe(503);
    expect(((await asset.json()) as { code: string }).code).toBe('not_ready');

    expect(await claim.start().done).toBe(true);
    const served = await app.request('/docs/sdk/');
    expect(served.status).toBe(200);
    expect(await served.text()).toBe('<h1>Consilium SDK</h1>');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

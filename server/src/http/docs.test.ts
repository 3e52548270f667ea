/**
 * `/docs/` is found from where the server's code lives, not from the working directory: the bundle `npm start` runs
 * is started here from a temporary directory, as an operator may, and must still serve the reference.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildHttpReference, HTTP_REFERENCE_DIR } from '../../../docs/src/build-http.js';
import { envWith, ROOT } from '../../../test/support/process.js';
import { startServer } from '../../../test/support/server.js';
import { bundleServer } from '../../build.js';
import { defaultDocsDir } from './docs.js';

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

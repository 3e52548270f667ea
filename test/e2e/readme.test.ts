/**
 * The root README's shell examples, run as written (bash and curl) against a real server on loopback:
 * only the URL, the printed password and the token are filled in. Each curl fails on an HTTP error,
 * so an example the server refuses fails here rather than for the reader.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../support/server.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

/** The `sh` blocks of one `## ` section, in order. */
function shellBlocks(section: string): string[] {
  const start = README.indexOf(`\n## ${section}\n`);
  expect(start, `README has a "${section}" section`).toBeGreaterThan(0);
  const end = README.indexOf('\n## ', start + 1);
  const text = README.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

let server: RunningServer;
let cwd: string;

beforeAll(async () => {
  server = await startServer();
  cwd = mkdtempSync(join(tmpdir(), 'consilium-readme-'));
});
afterAll(async () => {
  await server?.close();
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

/** Runs a README block with bash, `-e` and every curl failing on an HTTP error; resolves with stdout. */
function runBlock(block: string): Promise<string> {
  const script = block
    .replaceAll('http://127.0.0.1:8787', server.baseUrl)
    .replaceAll('<the printed password>', server.adminPassword)
    .replaceAll('correct-horse-battery-staple', server.adminPassword);
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', `set -eo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n${script}`],
      { cwd, env: { PATH: process.env.PATH, CONSILIUM_TOKEN: server.token }, timeout: 60_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

describe('README examples', () => {
  it('"Signing in": the cookie, a token made with it, and a bearer request work as shown', async () => {
    const outputs = [];
    for (const block of shellBlocks('Signing in')) outputs.push(await runBlock(block));
    expect(outputs.join('\n')).toMatch(/"token":"csk_/);
  });

  it('"Using the API": sign in, make a token, ask, debate, stream, each as shown', async () => {
    const [block, ...rest] = shellBlocks('Using the API');
    expect(rest).toEqual([]);
    const out = await runBlock(block!);
    expect(out).toContain('"answer"');
    expect(out).toContain('"verdict"');
    expect(out).toMatch(/event: session\.ended\n/);
  });
});

/**
 * `tsx bench/post-cost.ts <bundle> [requests]`: the server's CPU per POST on the way into a debate
 * (host check, auth with a bearer token, body limit and read, JSON parse, zod), without the debate:
 * each POST asks for 9 rounds, so validation refuses it with a 400 after all of that. 50 in flight at
 * once over keep-alive, like the providers bench's batches. For A/B of two bundles (see README, providers).
 * `BENCH_CPU_PROF=<dir>` profiles the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_PASSWORD, signIn, spawnMeasured } from './providers.js';

const [bundle, count = '4000'] = process.argv.slice(2);
if (!bundle) throw new Error('usage: tsx bench/post-cost.ts <bundle> [requests]');
const dataDir = mkdtempSync(join(tmpdir(), 'consilium-post-cost-'));
const profDir = process.env.BENCH_CPU_PROF;
const server = await spawnMeasured(
  [...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), bundle],
  {
    ...process.env,
    PORT: '0',
    CONSILIUM_DATA_DIR: dataDir,
    CONSILIUM_DATABASE: '',
    CONSILIUM_ADMIN_PASSWORD: ADMIN_PASSWORD,
    CONSILIUM_RATE_LIMITS: 'off',
    CONSILIUM_LOG_LEVEL: 'info',
  },
  () => rmSync(dataDir, { recursive: true, force: true }),
);
const { url } = server;
const auth = await signIn(url);
const body = JSON.stringify({ question: 'Should we ship the smaller change first?', rounds: 9 });
const post = async () => {
  const res = await fetch(`${url}/consilium/deep/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 400) throw new Error(`expected 400, got ${res.status}`);
};
const batch = async (n: number) => {
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, post));
};
await batch(500); // warm-up
const before = server.cpuMs();
const started = performance.now();
await batch(Number(count));
const wall = performance.now() - started;
console.log(
  `${bundle}: server CPU per POST ${((server.cpuMs() - before) / Number(count)).toFixed(3)} ms; wall per batch of 50 ${((wall / Number(count)) * 50).toFixed(1)} ms`,
);
await server.stop();

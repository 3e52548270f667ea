/**
 * The first `npm start` of a fresh clone serves at once: `/health` answers while the SDK reference is still being
 * built in the background (so the listen came first, whatever the machine's speed), within a generous 10 s of
 * `npm start` on a quiet machine (the bound grows with the machine's load); `/docs/sdk/` says it is being built. A
 * start killed mid-build leaves no half-built reference, and the next start builds it whole.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { captured, envWith, freePort, freshClone, kill, npmStart, type Run, running, runs, stop } from '../support/process.js';

/**
 * The goal for a fresh clone's first `/health` on a quiet machine, kept only as a generous bound (the proof is the
 * order above): stretched by how many runnable processes share each core now, since the builds before the listen
 * take that much longer on a machine that busy.
 */
const FIRST_HEALTH_MS = 10_000 * Math.max(1, loadavg()[0]! / availableParallelism());

const clone = freshClone();
afterAll(async () => {
  await Promise.all(runs.map(stop));
  rmSync(clone, { recursive: true, force: true });
});

const api = join(clone, 'docs/api');
const baseUrlOf = (port: number) => `http://127.0.0.1:${port}`;

/** Polls `path` from `npm start` on until it answers (connections refused before the listen); resolves with the answer. */
async function firstAnswer(run: Run, url: string): Promise<Response> {
  for (;;) {
    if (!running(run)) throw new Error(`npm start exited before ${url} answered${captured(run)}`);
    const res = await fetch(url).catch(() => undefined);
    if (res) return res;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function start(): Promise<{ run: Run; baseUrl: string; health: Response; healthMs: number; sdk: Response }> {
  const port = await freePort();
  const started = performance.now();
  const run = npmStart(envWith(join(clone, 'data'), { PORT: String(port) }), { cwd: clone });
  const health = await firstAnswer(run, `${baseUrlOf(port)}/health`);
  const healthMs = performance.now() - started;
  const sdk = await fetch(`${baseUrlOf(port)}/docs/sdk/`);
  return { run, baseUrl: baseUrlOf(port), health, healthMs, sdk };
}

const expectBeingBuilt = async (sdk: Response, run: Run) => {
  expect(sdk.status, captured(run)).toBe(503);
  expect(await sdk.text()).toContain('The SDK reference is being built');
};

it('serves /health within 10 s of npm start on a fresh clone, while the SDK reference is being built', async () => {
  expect(existsSync(join(clone, 'dist'))).toBe(false);
  expect(existsSync(api)).toBe(false);
  const first = await start();
  expect(first.health.status, captured(first.run)).toBe(200);
  await expectBeingBuilt(first.sdk, first.run);
  expect(first.healthMs, `first /health after ${Math.round(first.healthMs)} ms${captured(first.run)}`).toBeLessThan(
    FIRST_HEALTH_MS,
  );

  // Killed mid-build (the whole process group, typedoc too, as a script giving up on it would): nothing half-built.
  while (!readdirSync(api).some((name) => /^sdk\.\d+\.tmp$/.test(name))) await new Promise((r) => setTimeout(r, 20));
  await kill(first.run);
  expect(existsSync(join(api, 'sdk'))).toBe(false);

  // The next start says it is being built again, and builds it whole.
  const second = await start();
  expect(second.health.status).toBe(200);
  await expectBeingBuilt(second.sdk, second.run);
  let sdk: Response;
  do {
    await new Promise((resolve) => setTimeout(resolve, 500));
    sdk = await fetch(`${second.baseUrl}/docs/sdk/`);
  } while (sdk.status === 503);
  expect(sdk.status, captured(second.run)).toBe(200);
  expect(await sdk.text()).toContain('Consilium SDK');
  expect((await fetch(`${second.baseUrl}/docs/sdk/classes/_consilium_sdk.Consilium.html`)).status, captured(second.run)).toBe(
    200,
  );
  expect(readdirSync(api).sort()).toEqual(['http', 'sdk']);
  await stop(second.run);
}, 600_000);

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zProviderCatalogue } from '../../sdk/src/generated/zod.gen.js';
import { type RunningServer, startServer } from '../support/server.js';

let server: RunningServer;
let deadUrl: string;

beforeAll(async () => {
  const dead = createServer();
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/v1`;
  await new Promise((r) => dead.close(r));
  server = await startServer({ CONSILIUM_SLOT5_PROVIDER: 'local-llm', CONSILIUM_SLOT5_BASE_URL: deadUrl });
});
afterAll(() => server?.close());

const providers = async (query = '') => {
  const res = await server.fetch(`/providers${query}`);
  expect(res.status).toBe(200);
  return zProviderCatalogue.parse(await res.json());
};

describe('GET /providers', () => {
  it('without check: configuration only, no health', async () => {
    const catalogue = await providers();
    expect(catalogue.slots.map((s) => s.status)).toEqual(['offline', 'offline', 'offline', 'offline', 'live']);
    for (const slot of catalogue.slots) expect(slot).not.toHaveProperty('health');
  });

  it('with check=true: a live slot at a dead URL is failing with connection_refused; offline slots say offline', async () => {
    const catalogue = await providers('?check=true');
    expect(catalogue.slots.slice(0, 4).map((s) => s.health?.status)).toEqual(['offline', 'offline', 'offline', 'offline']);
    const local = catalogue.slots[4]!;
    expect(local).toMatchObject({
      provider: 'local-llm',
      status: 'live',
      health: { status: 'failing', endpoint: `${deadUrl}/models`, error: { code: 'connection_refused' } },
    });
    expect(local.health!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(local.health!.checkedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('asks for credentials like every operation that reaches out', async () => {
    expect((await fetch(`${server.baseUrl}/providers?check=true`)).status).toBe(401);
  });

  it('check=false is the same as no check; anything but a boolean is a 400 naming query.check', async () => {
    for (const slot of (await providers('?check=false')).slots) expect(slot).not.toHaveProperty('health');
    const res = await server.fetch('/providers?check=maybe');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['query.check']);
  });
});

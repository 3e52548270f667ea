/**
 * What the HTTP layer costs: `GET /health` and a rejected `POST /consilium/deep` through the whole
 * app (request id, access log, body limit, generated route, zod validation, problem body), against
 * a bare `node:http` server answering the same bytes on the same loopback, measured in the same run.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer } from '../test/support/server.js';
import { record, round } from './figures.js';
import { percentile, report } from './stats.js';

const ROUNDS = 2_000;

async function time(url: string, init?: RequestInit): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS + 200; i++) {
    const start = performance.now();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (i >= 200) samples.push(performance.now() - start); // the first 200 warm up
  }
  return samples;
}

export async function benchHttp(): Promise<void> {
  const app = await startServer();
  const health = await (await app.fetch(`/health`)).text();
  const bare: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(health);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/health`;
  try {
    const baseline = percentile(await time(bareUrl), 50);
    const viaApp = percentile(await time(`${app.baseUrl}/health`), 50);
    const badBody = {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...app.headers },
      body: '{"question":"","rounds":9}',
    };
    const rejected = percentile(await time(`${app.baseUrl}/consilium/deep`, badBody), 50);
    report('http: bare node:http GET p50 (baseline)', baseline, 'ms');
    report('http: app GET /health p50', viaApp, 'ms', `${(viaApp / baseline).toFixed(2)}x baseline`);
    report('http: app POST bad body -> 400 problem p50', rejected, 'ms', `${(rejected / baseline).toFixed(2)}x baseline`);
    record({ id: 'health', label: '`GET /health` p50 / bare `node:http`', value: round(viaApp / baseline, 2), unit: '×' });
    record({
      id: 'rejected',
      label: 'rejected `POST /consilium/deep` p50 / bare `node:http`',
      value: round(rejected / baseline, 2),
      unit: '×',
    });
  } finally {
    bare.close();
    await app.close();
  }
}

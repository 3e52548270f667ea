/**
 * A `consult` over MCP (the official client, Streamable HTTP) against the same 3-round deep debate over
 * `POST /consilium/deep`, on one server (offline models that stream at a fixed pace, SQLite), interleaved so both
 * see the same machine: the median wall time of each, and their ratio (goal ≤ 1.05).
 */
import { connectMcp } from '../test/support/mcp.js';
import { startServer } from '../test/support/server.js';
import { record, round } from './figures.js';
import { percentile, report } from './stats.js';

const REPEAT = Number(process.env.BENCH_REPEAT ?? 15);

export async function benchMcp(): Promise<void> {
  // A pace like a model's (a token every 2 ms), so a debate's time is the models', as in use.
  const server = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '2' });
  const client = await connectMcp(server.baseUrl, server.token);
  const question = (i: number) => `Monolith or services, take ${i}?`;
  const overHttp = async (i: number) => {
    const res = await server.fetch('/consilium/deep', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: question(i), rounds: 3 }),
    });
    if (res.status !== 200) throw new Error(`POST /consilium/deep answered ${res.status}: ${await res.text()}`);
    await res.json();
  };
  const overMcp = async (i: number) => {
    const result = await client.callTool({ name: 'consult', arguments: { question: question(i), rounds: 3 } });
    if (result.isError) throw new Error(`consult failed: ${JSON.stringify(result.content)}`);
  };
  const timed = async (f: (i: number) => Promise<void>, i: number) => {
    const started = performance.now();
    await f(i);
    return performance.now() - started;
  };
  try {
    // Warm both paths (the MCP session, the prepared statements, the JIT).
    await overHttp(-1);
    await overMcp(-1);
    const http: number[] = [];
    const mcp: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      // Alternating which goes first, so neither always runs on the warmer machine.
      if (i % 2 === 0) {
        http.push(await timed(overHttp, i));
        mcp.push(await timed(overMcp, i));
      } else {
        mcp.push(await timed(overMcp, i));
        http.push(await timed(overHttp, i));
      }
    }
    const [h, m] = [percentile(http, 50), percentile(mcp, 50)];
    report('mcp: deep debate over POST /consilium/deep, median (baseline)', h, 'ms', `${REPEAT} runs`);
    report('mcp: the same debate as a consult over MCP, median', m, 'ms', `${(m / h).toFixed(3)}x HTTP`);
    record({
      id: 'consult-ratio',
      label: 'a 3-round `consult` over MCP / the same debate over `POST /consilium/deep`, median wall time',
      value: round(m / h, 3),
      unit: '×',
      goal: { op: '≤', value: 1.05 },
    });
  } finally {
    await client.close();
    await server.close();
  }
}

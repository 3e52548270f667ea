/**
 * Issue 24's flood: 120 wrong sign-ins from one address, 20 at a time, for a user hashed at production cost (32 MiB),
 * while another user reads `GET /sessions` one request after another. The reader's p50 and p99 during the flood
 * against its own idle p50 and p99 just before, in the same run; and how fast the attempts beyond the hash pool's
 * queue are refused. The server runs the production hash settings (`CONSILIUM_HASH_WORKERS`, `CONSILIUM_HASH_QUEUE`
 * unset) on SQLite (`BENCH_DATABASE` for another store).
 */
import { startServer } from '../test/support/server.js';
import { percentile, signInFlood } from '../test/support/sign-in-flood.js';
import { record, round } from './figures.js';
import { report } from './stats.js';

export async function benchFlood(): Promise<void> {
  const server = await startServer({
    CONSILIUM_HASH_QUEUE: '',
    ...(process.env.BENCH_DATABASE && { CONSILIUM_DATABASE: process.env.BENCH_DATABASE }),
  });
  try {
    const { idle, during, attempts, floodMs } = await signInFlood(server, { idleReads: 500, warmup: 200 });
    const [idle50, idle99, during50, during99] = [
      percentile(idle, 50),
      percentile(idle, 99),
      percentile(during, 50),
      percentile(during, 99),
    ];
    const checked = attempts.filter((a) => a.status === 401);
    const refused = attempts.filter((a) => a.status === 503);
    const refused50 = percentile(
      refused.map((a) => a.ms),
      50,
    );
    const checked50 = percentile(
      checked.map((a) => a.ms),
      50,
    );
    const { workers, queue } = server.config.passwordHashing;
    report('flood: reader GET /sessions idle p50 (baseline)', idle50, 'ms', `p99 ${idle99.toFixed(2)} ms`);
    report('flood: reader p50 during the flood', during50, 'ms', `${(during50 / idle50).toFixed(2)}x idle`);
    report('flood: reader p99 during the flood', during99, 'ms', `${(during99 / idle99).toFixed(2)}x idle p99`);
    report(
      'flood: attempts checked (401) / refused (503)',
      checked.length,
      '',
      `/ ${refused.length}, ${workers} worker(s), queue ${queue}, ${Math.round(floodMs)} ms, ${during.length} reads`,
    );
    report('flood: refused attempt p50', refused50, 'ms', `checked p50 ${checked50.toFixed(0)} ms`);
    record({
      id: 'reader-p50',
      label: 'another user’s `GET /sessions` p50 during a 120-sign-in flood / idle p50',
      value: round(during50 / idle50, 2),
      unit: '×',
      goal: { op: '≤', value: 2 },
    });
    record({
      id: 'reader-p99',
      label: 'another user’s `GET /sessions` p99 during the flood / idle p99',
      value: round(during99 / idle99, 2),
      unit: '×',
      goal: { op: '≤', value: 5 },
    });
    record({
      id: 'refused-p50',
      label: 'sign-in refused (503 `hashing_busy`) beyond the hash queue, p50',
      value: round(refused50, 1),
      unit: 'ms',
    });
  } finally {
    await server.close();
  }
}

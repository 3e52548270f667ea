/**
 * Two floods of wrong sign-ins, on the production hash settings (`CONSILIUM_HASH_WORKERS`, `CONSILIUM_HASH_QUEUE`
 * unset) on SQLite (`BENCH_DATABASE` for another store). One address: 120 for a user hashed at production cost
 * (32 MiB), 20 at a time, while another user reads `GET /sessions` one request after another; the reader's p50 and
 * p99 during the flood against its own idle p50 and p99 just before, and how fast the attempts beyond the hash pool's
 * queue are refused. Thirty addresses, without pause, with the rate limits on: the owner's correct sign-ins from the
 * address they signed in from before (how many succeed, and their p50 against the same sign-ins idle), and another
 * user's reads against idle, all in the same run.
 */
import { startServer } from '../test/support/server.js';
import { manyAddressFlood, percentile, signInFlood } from '../test/support/sign-in-flood.js';
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
  await benchManyAddresses();
}

async function benchManyAddresses(): Promise<void> {
  const server = await startServer({
    CONSILIUM_HASH_QUEUE: '',
    CONSILIUM_RATE_LIMITS: 'on',
    ...(process.env.BENCH_DATABASE && { CONSILIUM_DATABASE: process.env.BENCH_DATABASE }),
  });
  try {
    const result = await manyAddressFlood(server, { addresses: 30, tries: 50, idle: 20 });
    const ms = (attempts: { ms: number }[]) => attempts.map((a) => a.ms);
    const ok = result.owner.filter((a) => a.status === 200).length;
    const ownerIdle50 = percentile(ms(result.ownerIdle), 50);
    const owner50 = percentile(ms(result.owner), 50);
    const readerIdle50 = percentile(result.readerIdle, 50);
    const reader50 = percentile(result.readerDuring, 50);
    const by = (status: number) => result.flood.filter((a) => a.status === status).length;
    report('flood, 30 addresses: the owner’s sign-ins that succeeded', ok, '', `of ${result.owner.length}`);
    report('flood, 30 addresses: the owner’s sign-in p50', owner50, 'ms', `idle ${ownerIdle50.toFixed(0)} ms`);
    report('flood, 30 addresses: another user’s GET /sessions p50', reader50, 'ms', `idle ${readerIdle50.toFixed(2)} ms`);
    report('flood, 30 addresses: attempts 401 / 429 / 503', by(401), '', `/ ${by(429)} / ${by(503)}`);
    record({
      id: 'many-owner-success',
      label: 'the owner’s correct sign-ins from their address during a 30-address flood that succeed',
      value: round((100 * ok) / result.owner.length, 1),
      unit: '%',
      goal: { op: '≥', value: 95 },
    });
    record({
      id: 'many-owner-p50',
      label: 'the owner’s sign-in p50 during the 30-address flood / idle p50',
      value: round(owner50 / ownerIdle50, 2),
      unit: '×',
    });
    record({
      id: 'many-reader-p50',
      label: 'another user’s `GET /sessions` p50 during the 30-address flood / idle p50',
      value: round(reader50 / readerIdle50, 2),
      unit: '×',
      goal: { op: '≤', value: 2 },
    });
  } finally {
    await server.close();
  }
}

/**
 * Time to the first answer text of a deep debate, over `POST /v1/chat/completions` (`stream: true`, its first
 * `reasoning_content` that carries an answer's delta) against the native `POST /consilium/deep/stream` (its first
 * `answer.delta`), on one server (offline models, SQLite), interleaved so both see the same machine: the medians,
 * and their difference (goal ≤ 5 ms; 61 runs, since under load 21 left it noisy). Both read the raw event stream and stop at the chunk, which cancels the run.
 */
import { startServer } from '../test/support/server.js';
import { record, round } from './figures.js';
import { report } from './stats.js';

const REPEAT = Number(process.env.BENCH_REPEAT ?? 61);

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Milliseconds from sending `body` to `path` until a `data:` line satisfies `found`; then the stream is dropped. */
async function untilFirst(
  fetcher: (path: string, init: RequestInit) => Promise<Response>,
  path: string,
  body: unknown,
  found: (data: string) => boolean,
): Promise<number> {
  const started = performance.now();
  const res = await fetcher(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200 || !res.body) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`POST ${path}: the stream ended before the first answer text`);
      buffered += value;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('data: ') && found(line.slice(6))) return performance.now() - started;
    }
  } finally {
    await reader.cancel();
  }
}

export async function benchOpenai(): Promise<void> {
  const server = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '2' });
  const question = (i: number) => `Monolith or services, take ${i}?`;
  const native = (i: number) =>
    untilFirst(server.fetch, '/consilium/deep/stream', { question: question(i), rounds: 2 }, (data) =>
      data.includes('"type":"answer.delta"'),
    );
  const openai = (i: number) =>
    untilFirst(
      server.fetch,
      '/v1/chat/completions',
      { model: 'consilium/deep-2', stream: true, messages: [{ role: 'user', content: question(i) }] },
      // The first reasoning that is an answer's text (a round's heading comes before it, at `round.started`).
      (data) => data.includes('"reasoning_content":"\\n**Slot'),
    );
  try {
    await native(-1);
    await openai(-1);
    const overNative: number[] = [];
    const overOpenai: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      if (i % 2 === 0) {
        overNative.push(await native(i));
        overOpenai.push(await openai(i));
      } else {
        overOpenai.push(await openai(i));
        overNative.push(await native(i));
      }
    }
    const [n, o] = [median(overNative), median(overOpenai)];
    report('openai: first answer.delta over POST /consilium/deep/stream, median (baseline)', n, 'ms', `${REPEAT} runs`);
    report(
      'openai: first reasoning_content over POST /v1/chat/completions, median',
      o,
      'ms',
      `${(o - n).toFixed(2)} ms against the native stream`,
    );
    record({
      id: 'first-reasoning-delta',
      label:
        'first answer text as `reasoning_content` over `/v1/chat/completions` minus the first `answer.delta` over `POST /consilium/deep/stream`, medians',
      value: round(o - n, 2),
      unit: 'ms',
      goal: { op: '≤', value: 5 },
    });
  } finally {
    await server.close();
  }
}

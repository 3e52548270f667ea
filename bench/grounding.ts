/**
 * What grounding a debate in a wiki adds to its critical path: a 5-model, 3-round `engine.deep` over the simulated
 * providers (`sim-model.ts`) with and without `grounding`, alternating, against a loopback wiki that answers the
 * Action API's JSON after `BENCH_WIKI_MS` (default 20 ms, a wiki on the same network). Goal: the retrieval before
 * round 1 adds ≤ 10 % to the debate's wall time. Also the process's CPU per debate, grounded and not.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../server/src/config/config.js';
import { slotsFromEnv } from '../server/src/config/slots.js';
import { DebateEngine, type Slot } from '../server/src/debate/engine.js';
import { WikiSources } from '../server/src/grounding/sources.js';
import { LOCAL_OWNER } from '../server/src/http/owner.js';
import { record, round } from './figures.js';
import { SimLanguageModel } from './sim-model.js';
import { percentile, report } from './stats.js';

const QUESTION = 'When should we deploy the zebrafish service, and how fast must a bad deploy be rolled back?';
const RUNS = 7;
const WIKI_MS = Number(process.env.BENCH_WIKI_MS ?? 20);
const PAGE_TEXT = `${'Production deploys of the zebrafish service happen on Tuesdays only. '.repeat(40)}`;

/** A wiki on loopback: every request answered, after `WIKI_MS`, with what any of the grounding's requests reads. */
async function loopbackWiki(): Promise<{ api: string; requests: () => number; close: () => void }> {
  let count = 0;
  const titles = ['Deploy policy', 'Incident review', 'Rollback runbook', 'On call'];
  const body = JSON.stringify({
    batchcomplete: true,
    query: {
      general: { sitename: 'Bench Wiki', generator: 'MediaWiki 1.39.17', server: 'http://127.0.0.1', script: '/index.php' },
      extensions: [],
      namespaces: { 0: { id: 0, name: '', case: 'first-letter' } },
      userinfo: { id: 0, name: '127.0.0.1', rights: ['read'] },
      search: titles.map((title, i) => ({ ns: 0, title, pageid: i + 1 })),
      pages: titles.map((title, i) => ({
        pageid: i + 1,
        ns: 0,
        title,
        revisions: [{ revid: 100 + i, slots: { main: { content: `== ${title} ==\n${PAGE_TEXT}` } } }],
      })),
    },
  });
  const server = createServer((req, res) => {
    count++;
    req.resume();
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), WIKI_MS);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api.php`,
    requests: () => count,
    close: () => server.close(),
  };
}

function simPanel(): Slot[] {
  return slotsFromEnv({}).map((config) => {
    const languageModel = new SimLanguageModel({ slot: config.slot });
    return {
      config,
      model: { slot: config.slot, provider: config.provider, model: languageModel.modelId, offline: false, languageModel },
    };
  });
}

export async function benchGrounding(): Promise<void> {
  const wiki = await loopbackWiki();
  const config = loadConfig({ CONSILIUM_LOG_LEVEL: 'silent' });
  const engine = new DebateEngine({
    panel: simPanel(),
    quorum: config.quorum,
    callTimeoutMs: config.callTimeoutMs,
    maxRetries: 0,
    prices: {},
    owner: LOCAL_OWNER,
  });
  const wikis = new WikiSources([
    {
      name: 'bench',
      api: wiki.api,
      userAgent: 'ConsiliumBench/1.0',
      limits: { pages: 4, bytesPerPage: 4000, requestsPerRound: 3, maxResponseBytes: 1_048_576 },
      timeoutMs: 5000,
    },
  ]);
  await wikis.start();
  const plain: number[] = [];
  const grounded: number[] = [];
  const plainCpu: number[] = [];
  const groundedCpu: number[] = [];
  const retrievalMs: number[] = [];
  for (let run = -1; run < RUNS; run++) {
    // Alternating, so drift in the machine's load touches both alike; run -1 warms both up.
    for (const withWiki of [false, true]) {
      const grounding = withWiki ? wikis.grounding('bench')! : undefined;
      const cpu = process.cpuUsage();
      const start = performance.now();
      const session = await engine.deep(QUESTION, { rounds: 3, ...(grounding && { grounding }) });
      const wall = performance.now() - start;
      const used = process.cpuUsage(cpu);
      if (session.status !== 'completed') throw new Error(`a ${withWiki ? 'grounded' : 'plain'} debate ended ${session.status}`);
      if (withWiki && session.grounding?.pages.length !== 4)
        throw new Error(`retrieval read ${session.grounding?.pages.length} pages`);
      if (run < 0) continue;
      (withWiki ? grounded : plain).push(wall);
      (withWiki ? groundedCpu : plainCpu).push((used.user + used.system) / 1000);
      if (withWiki) retrievalMs.push(session.grounding!.usage.ms);
    }
  }
  wiki.close();
  const median = (xs: number[]) => percentile(xs, 50);
  const added = (median(grounded) - median(plain)) / median(plain);
  console.log(`grounding: 3-round debate, 5 simulated models, loopback wiki answering after ${WIKI_MS} ms`);
  report('plain debate, median wall', median(plain), 'ms');
  report('grounded debate, median wall', median(grounded), 'ms');
  report('retrieval (requests summed), median', median(retrievalMs), 'ms');
  report('added wall time', added * 100, '%', 'goal ≤ 10 %');
  report('CPU per debate, plain', median(plainCpu), 'ms');
  report('CPU per debate, grounded', median(groundedCpu), 'ms');
  record({
    id: 'added-wall',
    label: 'retrieval’s added wall time, 3-round debate',
    value: round(added * 100, 1),
    unit: '%',
    goal: { op: '≤', value: 10 },
  });
  record({
    id: 'cpu-ratio',
    label: 'CPU per grounded debate / plain',
    value: round(median(groundedCpu) / median(plainCpu), 2),
    unit: '×',
  });
}

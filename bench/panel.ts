/**
 * What the fairer panel (anonymous labels, peer ranking) costs per debate, over the simulated providers of `debate.ts`:
 * 1. CPU: the anonymising work of a 5-model, 3-round debate (labels for rounds 2 and 3, the labelled
 *    prompts against named ones, the final round's labels mapped back) and of a peer ranking (labels,
 *    five prompts, five ballots checked, the Borda count), each in µs per debate;
 * 2. wall time: `engine.deep` named, anonymous (the default) and anonymous with the ranking, each against
 *    the ideal critical path; anonymous must stay within the engine's overhead goal (≤ 1.02 × ideal), and
 *    the ranking runs beside round 2, so it should add no more than its own calls' spread.
 */
import { performance } from 'node:perf_hooks';
import { assignLabels, labelMaps, namedFinal } from '../server/src/debate/anonymise.js';
import { boundedPrompt, promptChars } from '../server/src/debate/budget.js';
import { DebateEngine } from '../server/src/debate/engine.js';
import type { PanelRequest } from '../server/src/debate/panel.js';
import { critiquePrompt, finalPrompt, rankingPrompt } from '../server/src/debate/prompts.js';
import { ballotOf, rankingOf } from '../server/src/debate/ranking.js';
import { idealMs, settings, simPanel } from './debate.js';
import { record, round } from './figures.js';
import { percentile, report } from './stats.js';

const QUESTION = 'Should the service stream every token of every model to the client, or batch them?';
const SLOTS = [1, 2, 3, 4, 5] as const;
const ROUNDS = 3;
const CPU_DEBATES = 2_000;
const WALL_RUNS = 7;
/** A typical answer: about 2 KB. */
const ANSWER = 'The panel should weigh latency against cost. '.repeat(45);
const median = (xs: number[]) => percentile(xs, 50);

/** The prompts of one debate's critique and final rounds, named or anonymous; returns a checksum so nothing is optimized away. */
function debatePrompts(anonymous: boolean): number {
  let size = 0;
  for (let n = 2; n <= ROUNDS; n++) {
    const labels = anonymous ? assignLabels(SLOTS, SLOTS, Math.random) : undefined;
    if (labels) size += labelMaps(n, 'debate', labels).length;
    for (const reader of SLOTS) {
      const others = labels
        ? labels.get(reader)!.map((l) => ({ slot: l.slot, provider: 'p', text: ANSWER, label: l.label }))
        : SLOTS.filter((s) => s !== reader).map((slot) => ({ slot, provider: 'p', text: ANSWER }));
      const { prompt } = boundedPrompt(
        [{ slot: reader, text: ANSWER }, ...others],
        (texts) =>
          n === ROUNDS
            ? finalPrompt(
                QUESTION,
                n,
                texts[0],
                others.map((o, i) => ({ ...o, text: texts[i + 1]! })),
                false,
                undefined,
                { anonymous },
              )
            : critiquePrompt(
                QUESTION,
                n,
                texts[0],
                others.map((o, i) => ({ ...o, text: texts[i + 1]! })),
              ),
        { maxChars: promptChars('deepseek', undefined), overhead: 300, round: n, reader },
      );
      size += prompt.length;
      if (labels && n === ROUNDS) {
        const holders = ['you', ...labels.get(reader)!.map((l) => l.label)];
        const final = {
          position: 'p',
          changed: false,
          changeReason: 'r',
          agreements: [{ statement: 's', responses: holders }],
          disagreements: [],
        };
        size += namedFinal(final, reader, labels.get(reader)!).agreements[0]!.slots.length;
      }
    }
  }
  return size;
}

/** A ranking's own CPU: labels, five prompts, five ballots checked, the count. */
function rankingWork(): number {
  const labels = assignLabels(SLOTS, SLOTS, Math.random);
  let size = labelMaps(1, 'ranking', labels).length;
  const ballots = [];
  for (const reader of SLOTS) {
    const mine = labels.get(reader)!;
    size += rankingPrompt(
      QUESTION,
      1,
      mine.map((l) => ({ slot: l.slot, provider: '', text: ANSWER, label: l.label })),
    ).length;
    const ballot = ballotOf({ ranking: mine.map((l) => ({ response: l.label, reason: 'clear' })) }, reader, mine);
    if (!('invalid' in ballot)) ballots.push(ballot);
  }
  return size + rankingOf(1, ballots, [], [...SLOTS]).aggregate.length;
}

function usPerDebate(work: () => number): number {
  let sink = 0;
  for (let i = 0; i < 200; i++) sink += work();
  const start = performance.now();
  for (let i = 0; i < CPU_DEBATES; i++) sink += work();
  const us = ((performance.now() - start) * 1000) / CPU_DEBATES;
  if (sink < 0) console.log(sink);
  return us;
}

async function wallTimes(): Promise<void> {
  const engine = new DebateEngine(settings(simPanel()).engine);
  const ideal = idealMs(ROUNDS);
  const variants: [name: string, panel: PanelRequest][] = [
    ['named', { anonymous: false }],
    ['anonymous', {}],
    ['anonymous + ranking', { ranking: true }],
  ];
  const walls = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  for (let run = -2; run < WALL_RUNS; run++) {
    // Interleaved, so drift in the machine's load touches each alike.
    for (const [name, panel] of variants) {
      const start = performance.now();
      const session = await engine.deep(QUESTION, { rounds: ROUNDS, panel });
      const wall = performance.now() - start;
      // The simulated models' ballots are sampled JSON, rarely valid: a ranking then ends `partial`, which is expected here.
      if (!session.verdict) console.log(`panel: WARNING ${name}: no verdict (${session.status})`);
      if (run >= 0) walls.get(name)!.push(wall);
    }
  }
  const ratio = (name: string) => median(walls.get(name)!) / ideal;
  for (const [name] of variants)
    report(`panel: engine.deep ${name} / ideal critical path`, ratio(name), 'x', `median of ${WALL_RUNS}`);
  record({
    id: 'anonymous-critical-path',
    label: '`engine.deep`, anonymous peers, / ideal critical path',
    value: round(ratio('anonymous'), 3),
    unit: '×',
    goal: { op: '≤', value: 1.02 },
  });
  record({
    id: 'ranking-critical-path',
    label: '`engine.deep`, anonymous with the peer ranking, / ideal critical path',
    value: round(ratio('anonymous + ranking'), 3),
    unit: '×',
    goal: { op: '≤', value: 1.02 },
  });
}

export async function benchPanel(): Promise<void> {
  const named = usPerDebate(() => debatePrompts(false));
  const anonymous = usPerDebate(() => debatePrompts(true));
  const ranking = usPerDebate(rankingWork);
  report('panel: named prompts of a 5-model 3-round debate (baseline)', named, 'µs', `${CPU_DEBATES} debates`);
  report('panel: anonymous prompts of the same debate', anonymous, 'µs', `+${(anonymous - named).toFixed(1)} µs per debate`);
  report('panel: a peer ranking (labels, 5 prompts, 5 ballots, Borda)', ranking, 'µs', 'per debate');
  record({
    id: 'anonymise-cpu',
    label: 'anonymising a 5-model 3-round debate, CPU per debate',
    value: round(Math.max(0, anonymous - named), 1),
    unit: 'µs',
  });
  record({ id: 'ranking-cpu', label: 'a peer ranking, CPU per debate', value: round(ranking, 1), unit: 'µs' });
  await wallTimes();
}

/**
 * What trusting a debate costs, and what voting first saves, over real HTTP on scripted loopback models
 * (`test/support/scripted-models.ts`), SQLite:
 * 1. the integrity report per deep session: CPU (µs to work it out from the stored session, against one
 *    `JSON.stringify` of that session, which every store write does anyway), and bytes stored (the compact
 *    database with every report, in the session and in its archived events, less the same without them);
 * 2. `strategy: "adaptive"` against the full debate on a set where half the questions are unanimous: tokens,
 *    dollars, calls and wall time, as ratios; and whether it stopped on exactly the unanimous half.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import sqlite3 from 'sqlite3';
import { Consilium } from '../sdk/src/facade/consilium.js';
import type { Session } from '../sdk/src/generated/types.gen.js';
import { integrityReport } from '../server/src/debate/integrity.js';
import { packEvents, unpackEvents } from '../server/src/store/archive.js';
import { Connection } from '../server/src/store/sqlite/connection.js';
import { scriptedPanel, startScriptedModels, sumQuestions } from '../test/support/scripted-models.js';
import { startServer } from '../test/support/server.js';
import { record, round } from './figures.js';
import { percentile } from './stats.js';

const PANEL = ['accurate-0.7', 'conformist-0.5', 'stubborn-0.6', 'qwen2.5:7b', 'qwen2.5:14b'];
const DEBATES = 40;
const CPU_REPEATS = 2_000;
/** The adaptive set: this many questions, every other one "(settled)" (unanimous). */
const ADAPTIVE_QUESTIONS = 40;

export async function benchTrust(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'consilium-bench-trust-'));
  const models = await startScriptedModels({ seed: 12 });
  const server = await startServer(scriptedPanel(models.baseUrl, PANEL));
  const consilium = new Consilium({ baseUrl: server.baseUrl, token: server.token });
  try {
    const sessions: Session[] = [];
    for (const q of sumQuestions(DEBATES, 12)) sessions.push(await consilium.debates.run(q.question, { rounds: 3 }));

    // 1a. CPU: the report, and one serialization of the session, alternating, median of per-session means.
    const perReport: number[] = [];
    const perJson: number[] = [];
    let sink = 0;
    for (const s of sessions) {
      const { integrity: _, ...bare } = s;
      for (const [samples, work] of [
        [perReport, () => (sink += integrityReport(bare)!.slots.length)],
        [perJson, () => (sink += JSON.stringify(bare).length)],
      ] as const) {
        const start = performance.now();
        for (let i = 0; i < CPU_REPEATS / 10; i++) work();
        samples.push(((performance.now() - start) * 1000) / (CPU_REPEATS / 10));
      }
    }
    const reportUs = percentile(perReport, 50);
    const jsonUs = percentile(perJson, 50);
    const reportJson = sessions.reduce((n, s) => n + Buffer.byteLength(JSON.stringify(s.integrity)), 0) / sessions.length;
    const sessionJson = sessions.reduce((n, s) => n + Buffer.byteLength(JSON.stringify(s)), 0) / sessions.length;

    // 1b. Bytes stored: compact copies with the reports and without (removed from `links` and from each archive).
    await server.database.sessions.archivesDone();
    const db = await Connection.open(server.config.database, sqlite3.OPEN_READWRITE);
    const compact = async (name: string) => {
      const file = join(dir, name);
      await db.run('VACUUM INTO ?1', [file]);
      return statSync(file).size;
    };
    const withReports = await compact('with.db');
    await db.run("UPDATE sessions SET links = json_remove(links, '$.integrity') WHERE links ->> '$.integrity' IS NOT NULL");
    for (const { session_id, body } of await db.all<{ session_id: string; body: Buffer }>(
      'SELECT session_id, body FROM event_archives',
    )) {
      const kept = unpackEvents(body).filter((e) => e.type !== 'integrity');
      await db.run('UPDATE event_archives SET body = ?2 WHERE session_id = ?1', [
        session_id,
        await packEvents(JSON.stringify(kept)),
      ]);
    }
    const without = await compact('without.db');
    await db.close();
    const storedBytes = (withReports - without) / sessions.length;
    console.log(
      `trust: integrity report ${reportUs.toFixed(1)} µs per session (JSON.stringify of the session ${jsonUs.toFixed(1)} µs); ` +
        `${Math.round(reportJson)} B of JSON (${((reportJson / sessionJson) * 100).toFixed(1)} % of the session's); ` +
        `${Math.round(storedBytes)} B stored per session (${sink > 0 ? 'ok' : ''})`,
    );
    record({
      id: 'report-cpu',
      label: 'integrity report, CPU per 5-model 3-round session',
      value: round(reportUs, 1),
      unit: 'µs',
    });
    record({
      id: 'report-over-json',
      label: 'integrity report CPU / one `JSON.stringify` of the session',
      value: round(reportUs / jsonUs, 2),
      unit: '×',
    });
    record({
      id: 'report-stored',
      label: 'integrity report, bytes stored per session (SQLite, compacted)',
      value: Math.round(storedBytes),
      unit: 'B',
    });
    record({
      id: 'report-share',
      label: "integrity report's JSON / the session's JSON",
      value: round((reportJson / sessionJson) * 100, 1),
      unit: '%',
    });

    // 2. Adaptive against the full debate on a half-unanimous set, each question asked both ways in turn.
    const questions = sumQuestions(ADAPTIVE_QUESTIONS, 13).map((q, i) => (i % 2 === 0 ? `${q.question} (settled)` : q.question));
    const spent = { debate: { tokens: 0, usd: 0, calls: 0, ms: 0 }, adaptive: { tokens: 0, usd: 0, calls: 0, ms: 0 } };
    let stoppedOnSettled = 0;
    let stoppedElsewhere = 0;
    for (const [i, question] of questions.entries()) {
      for (const strategy of ['debate', 'adaptive'] as const) {
        const before = models.calls.length;
        const start = performance.now();
        const s = await consilium.debates.run(question, { rounds: 3, strategy });
        const totals = spent[strategy];
        totals.ms += performance.now() - start;
        totals.tokens += s.usage.totalTokens;
        totals.usd += s.cost.usd;
        totals.calls += models.calls.length - before;
        if (strategy === 'adaptive' && s.adaptive?.stopped) i % 2 === 0 ? stoppedOnSettled++ : stoppedElsewhere++;
      }
    }
    const ratio = (k: 'tokens' | 'usd' | 'calls' | 'ms') => spent.adaptive[k] / spent.debate[k];
    console.log(
      `trust: adaptive / debate on ${ADAPTIVE_QUESTIONS} questions, half unanimous: tokens ${ratio('tokens').toFixed(3)}, ` +
        `cost ${ratio('usd').toFixed(3)}, calls ${ratio('calls').toFixed(3)}, wall ${ratio('ms').toFixed(3)}; ` +
        `stopped on ${stoppedOnSettled} of ${ADAPTIVE_QUESTIONS / 2} unanimous, ${stoppedElsewhere} others`,
    );
    record({
      id: 'adaptive-tokens',
      label: 'adaptive / full debate, tokens, half the questions unanimous',
      value: round(ratio('tokens'), 3),
      unit: '×',
    });
    record({
      id: 'adaptive-cost',
      label: 'adaptive / full debate, cost, half the questions unanimous',
      value: round(ratio('usd'), 3),
      unit: '×',
    });
    record({
      id: 'adaptive-calls',
      label: 'adaptive / full debate, model calls, half the questions unanimous',
      value: round(ratio('calls'), 3),
      unit: '×',
    });
    record({
      id: 'adaptive-wall',
      label: 'adaptive / full debate, wall time, half the questions unanimous',
      value: round(ratio('ms'), 3),
      unit: '×',
    });
    record({
      id: 'adaptive-stops',
      label: `adaptive: stopped after round 1 on the unanimous questions (of ${ADAPTIVE_QUESTIONS / 2})`,
      value: stoppedOnSettled,
      unit: '',
      goal: { op: '=', value: ADAPTIVE_QUESTIONS / 2 },
    });
    record({
      id: 'adaptive-other-stops',
      label: 'adaptive: stopped on the other half too (its five answers happened to agree)',
      value: stoppedElsewhere,
      unit: '',
    });
  } finally {
    await server.close();
    await models.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

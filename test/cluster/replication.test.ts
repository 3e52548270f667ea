/**
 * Two instances through what a team meets in its first weeks, with real parts: PostgreSQL failing over from its
 * primary to a streaming standby (`support/replication.ts`; asynchronous with the replication link delayed, and
 * synchronous), one instance's database link held silent past its lease (a partition), a dead instance's debates
 * cancelled on the other, a session read the moment it is announced, and a follower through a hand-over.
 *
 * What must hold: a record is whole or says what it lacks; accepted means stored; nothing is shown that is not kept;
 * a cancel is final; once a client has seen a session's id every instance answers it; a follower keeps one stream to
 * the real end. Each scenario gathers what it found wrong into one list, so a failure shows all of it at once.
 */
import { isDeepStrictEqual } from 'node:util';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DebateEvent, Session } from '../../sdk/src/generated/types.gen.js';
import {
  type Cluster,
  clusterAvailable,
  type Instance,
  type Instances,
  startCluster,
  startInstances,
} from '../support/cluster.js';
import { captured, running, signIn } from '../support/process.js';
import { disagreements, missingAnswers, sequenceBreaks, shownNotStored, storedRecords } from '../support/records.js';
import { type Replication, replicationBinaries, startReplication } from '../support/replication.js';
import { readSse } from '../support/sse.js';

const LEASE_MS = 4000;
/** Short leases and sweeps, so a dead or cut-off instance's runs are found within seconds; a drain that interrupts. */
const SETTINGS = {
  CONSILIUM_LEASE_MS: String(LEASE_MS),
  CONSILIUM_HEARTBEAT_MS: '500',
  CONSILIUM_SWEEP_MS: '500',
  CONSILIUM_DRAIN_MS: '300',
};
const JSON_HEADERS = { 'content-type': 'application/json' };

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = (check: () => boolean | Promise<boolean>) => vi.waitUntil(check, { timeout: 120_000, interval: 50 });
const end = (e: DebateEvent | undefined) => (e?.type === 'session.ended' ? e : undefined);
const said = (e: DebateEvent | undefined) =>
  e ? `${e.type}${end(e) ? ` ${end(e)!.status}${end(e)!.error ? ` (${end(e)!.error})` : ''}` : ''} at ${e.seq}` : 'nothing';

/** Resolves once every one of `watches` has closed, or the bound passed: a stream left open is then reported, not waited on. */
const allClosed = (watches: readonly Watch[]) => until(() => watches.every((w) => w.done)).catch(() => undefined);

/** One event stream a client reads: a debate's own, or a follow of a session. */
interface Watch {
  readonly events: DebateEvent[];
  /** Settles once the stream has closed: `undefined` when it ended cleanly, else why (a status, a network error). */
  readonly closed: Promise<string | undefined>;
  readonly done: boolean;
  /** The first event `test` accepts (already seen, or to come); rejects if the stream closes first. */
  seen(test: (e: DebateEvent) => boolean): Promise<DebateEvent>;
  abort(): void;
}

function watch(request: (signal: AbortSignal) => Promise<Response>): Watch {
  const controller = new AbortController();
  const events: DebateEvent[] = [];
  const waiting = new Set<{ test: (e: DebateEvent) => boolean; resolve: (e: DebateEvent) => void; reject: (e: Error) => void }>();
  let done = false;
  const closed = (async (): Promise<string | undefined> => {
    try {
      const res = await request(controller.signal);
      if (res.status !== 200) return `HTTP ${res.status}: ${await res.text()}`;
      for await (const message of readSse(res)) {
        const event = JSON.parse(message.data) as DebateEvent;
        events.push(event);
        for (const w of [...waiting])
          if (w.test(event)) {
            waiting.delete(w);
            w.resolve(event);
          }
      }
      return undefined;
    } catch (error) {
      return error instanceof Error ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ''}` : String(error);
    } finally {
      done = true;
    }
  })();
  void closed.then((why) => {
    for (const w of waiting) w.reject(new Error(`the stream closed (${why ?? 'cleanly'}) after ${said(events.at(-1))}`));
    waiting.clear();
  });
  return {
    events,
    closed,
    get done() {
      return done;
    },
    seen(test) {
      const found = events.find(test);
      if (found) return Promise.resolve(found);
      if (done) return Promise.reject(new Error(`the stream had closed after ${said(events.at(-1))}`));
      return new Promise((resolve, reject) => waiting.add({ test, resolve, reject }));
    },
    abort: () => controller.abort(),
  };
}

/** The admin's calls on a set of instances: through nginx, or to one instance (`at`). */
function clientOf(instances: Instances, token: string) {
  const call = (path: string, init: RequestInit = {}, at = instances.proxyUrl) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(`${at}${path}`, { ...init, headers });
  };
  return {
    call,
    /** A detached deep debate: its id once answered 202. */
    async start(question: string, { at, rounds = 3 }: { at?: string; rounds?: number } = {}): Promise<string> {
      const res = await call(
        '/consilium/deep',
        { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ question, rounds, detach: true }) },
        at,
      );
      if (res.status !== 202) throw new Error(`starting "${question}" answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { sessionId: string }).sessionId;
    },
    /** A deep debate streamed to the client that starts it (closing it cancels the run). */
    stream(question: string, { at, rounds = 3 }: { at?: string; rounds?: number } = {}): Watch {
      return watch((signal) =>
        call(
          '/consilium/deep/stream',
          { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ question, rounds }), signal },
          at,
        ),
      );
    },
    /** `GET /sessions/{id}/events`, from the start or after `after`. */
    follow(id: string, { at, after }: { at?: string; after?: number } = {}): Watch {
      const headers: Record<string, string> = after === undefined ? {} : { 'last-event-id': String(after) };
      return watch((signal) => call(`/sessions/${id}/events`, { headers, signal }, at));
    },
    /** The session; undefined when not found; throws on anything else (a 503 while the store is away). */
    async session(id: string, at?: string): Promise<Session | undefined> {
      const res = await call(`/sessions/${id}`, {}, at);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw new Error(`GET /sessions/${id} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as Session;
    },
  };
}
type ClientOf = ReturnType<typeof clientOf>;

/**
 * Resolves once each of `instances` has renewed its lease a whole lease beyond where the latest stood when called:
 * proof, in the database's own time, that a lease window has passed (each renewal moves `expires_at` on).
 */
async function leaseWindow(databaseUrl: string, instances: readonly string[]): Promise<void> {
  const leases = async () => {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string; expires_at: Date }>(
        'SELECT id, expires_at FROM instances WHERE id = ANY($1)',
        [instances],
      );
      return rows;
    } finally {
      await client.end();
    }
  };
  const from = Math.max(...(await leases()).map((l) => l.expires_at.getTime()));
  await until(async () => {
    const now = await leases();
    return now.length === instances.length && now.every((l) => l.expires_at.getTime() >= from + LEASE_MS);
  });
}

/** What became of accepted sessions once the store had settled (see `settle`). */
interface Settled {
  /** The sessions that ended, as they ended (after any continues). */
  ended: Map<string, Session>;
  /** Accepted, then not found even a lease window after every other session had ended. */
  notFound: string[];
  /** Still running when the test gave up waiting (`deadline`). */
  stuck: string[];
  /** Every time a session was found `interrupted` (and then continued): its id and the slots it named missing. */
  interruptions: { id: string; missingSlots: number[] }[];
}

/**
 * Reads every session until it has ended; one found `interrupted` is continued (detached) by the test, as its owner
 * would, until it ends otherwise. One not found is read again until every other has ended and a lease window has
 * passed after that. Gives up at `deadline` (a bound for a hang, so it is reported rather than timing the test out).
 */
async function settle(c: ClientOf, ids: readonly string[], window: () => Promise<void>, deadline: number): Promise<Settled> {
  const ended = new Map<string, Session>();
  const missing = new Set<string>();
  const interruptions: Settled['interruptions'] = [];
  let waited = false;
  while (Date.now() < deadline) {
    for (const id of ids) {
      if (ended.has(id)) continue;
      const s = await c.session(id).catch(() => 'unreadable' as const);
      if (s === 'unreadable') continue;
      if (!s) {
        missing.add(id);
        continue;
      }
      missing.delete(id);
      if (s.status === 'running') continue;
      if (s.status === 'interrupted') {
        interruptions.push({ id, missingSlots: s.missingSlots });
        const res = await c.call(`/sessions/${id}/continue`, {
          method: 'POST',
          headers: JSON_HEADERS,
          body: JSON.stringify({ detach: true }),
        });
        // 409: another instance (or request) continued it first.
        if (res.status !== 202 && res.status !== 409)
          throw new Error(`continuing ${id} answered ${res.status}: ${await res.text()}`);
        await res.body?.cancel();
        continue;
      }
      ended.set(id, s);
    }
    if (ended.size + missing.size === ids.length) {
      if (missing.size === 0 || waited) break;
      await window();
      waited = true;
      continue;
    }
    await pause(100);
  }
  const notFound = [...missing];
  return { ended, notFound, stuck: ids.filter((id) => !ended.has(id) && !missing.has(id)), interruptions };
}

/** What is wrong with each settled session's record: not ended `completed` with a verdict, a hole, an answer lacking. */
async function recordProblems(settled: Settled, databaseUrl: string, ids: readonly string[]): Promise<string[]> {
  const records = await storedRecords(databaseUrl);
  const problems: string[] = [];
  for (const id of settled.notFound) problems.push(`${id}: accepted, then not found`);
  for (const id of settled.stuck) problems.push(`${id}: still running at the end`);
  for (const { id, missingSlots } of settled.interruptions)
    if (missingSlots.length === 0) problems.push(`${id}: interrupted, naming nothing it lacks (missingSlots [])`);
  for (const id of ids) {
    const s = settled.ended.get(id);
    if (!s) continue;
    if (s.status !== 'completed' || !s.verdict) problems.push(`${id}: ended ${s.status}${s.verdict ? '' : ', no verdict'}`);
    const record = records.get(id);
    if (!record) {
      problems.push(`${id}: read as ${s.status}, but no record in the database`);
      continue;
    }
    for (const b of sequenceBreaks(record.events)) problems.push(`${id}: ${b}`);
    if (s.status === 'completed') for (const m of missingAnswers(s, record.events)) problems.push(`${id}: completed, but ${m}`);
  }
  return problems;
}

/** What `watches` (by session id) were shown that the records do not hold, and any that never closed. */
async function shownProblems(watches: ReadonlyMap<string, Watch>, databaseUrl: string, who: string): Promise<string[]> {
  const records = await storedRecords(databaseUrl);
  const problems: string[] = [];
  for (const [id, w] of watches) {
    if (!w.done) problems.push(`${id}: ${who} still open, last shown ${said(w.events.at(-1))}`);
    for (const p of shownNotStored(w.events, records.get(id)?.events ?? [])) problems.push(`${id}: ${who}: ${p}`);
  }
  return problems;
}

/** For a failure's reader: what the database is busy with, and what each instance logged above `info`. */
async function explain(databaseUrl: string, instances: readonly Instance[]): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT application_name, state, wait_event_type, wait_event, now() - query_start AS running_for, left(query, 80) AS query
       FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
    );
    console.error('busy connections', rows);
  } finally {
    await client.end();
  }
  for (const i of instances) {
    const logged = i.run.stdout.split('\n').filter((line) => /"level":"(warn|error)"/.test(line));
    console.error(`${i.id}: ${logged.length} warnings and errors, the last 30:\n${logged.slice(-30).join('\n')}`);
  }
}

const exited = (instances: readonly Instance[]) =>
  instances.filter((i) => !running(i.run)).map((i) => `${i.id} exited${captured(i.run)}`);

describe.skipIf(!clusterAvailable || !replicationBinaries())('two instances through a PostgreSQL failover', () => {
  /**
   * Ten 3-round debates, five started on each instance and followed on the other, two more accepted just before the
   * primary goes; then the failover, and every session compared with the old primary's copy.
   */
  async function failover({ synchronous, linkDelayMs }: { synchronous: boolean; linkDelayMs: number }) {
    const deadline = Date.now() + 200_000;
    const rig = await startReplication({ synchronous, linkDelayMs });
    let instances: Instances | undefined;
    try {
      const databaseUrl = await rig.createDatabase();
      instances = await startInstances({ databaseUrl, tokenDelayMs: 10, env: SETTINGS });
      const [a, b] = instances.instances as [Instance, Instance];
      const c = clientOf(instances, (await signIn(instances.proxyUrl, instances.admin.username, instances.admin.password)).token);
      // The account and its token on the standby too, as a deployment's are long before a failover: what the failover
      // may lose is the debates' commits, not the client's means to read what came of them.
      await rig.caughtUp();
      const on = (i: number) => (i % 2 === 0 ? a : b);
      const off = (i: number) => (i % 2 === 0 ? b : a);

      const ids = await Promise.all(range(10).map((i) => c.start(`Failed over under debate ${i}?`, { at: on(i).url })));
      const followers = ids.map((id, i) => c.follow(id, { at: off(i).url }));
      await Promise.all(followers.map((f) => f.seen((e) => e.type === 'answer.completed')));
      const late = await Promise.all(range(2).map((i) => c.start(`Accepted as the primary goes ${i}?`, { at: on(i).url })));
      ids.push(...late);
      followers.push(...late.map((id, i) => c.follow(id, { at: off(i).url })));
      await Promise.all(followers.map((f) => f.seen((e) => e.type === 'session.started')));
      // The rig, not the product: the standby is behind, so asynchronous replication loses what it lacks.
      if (!synchronous) expect(await rig.lag(), 'bytes of WAL the standby lacks').toBeGreaterThan(0);
      // What the new primary holds the moment it takes over, before any instance reaches it: against the old one's
      // copy, what the failover lost.
      let promoted = new Map() as Awaited<ReturnType<typeof storedRecords>>;
      await rig.failover({
        promoted: async (at) => {
          promoted = await storedRecords(at(databaseUrl));
        },
      });

      const copy = await storedRecords(rig.oldPrimary(databaseUrl));
      const window = () => leaseWindow(databaseUrl, [a.id, b.id]);
      const settled = await settle(c, ids, window, deadline);
      const problems = await recordProblems(settled, databaseUrl, ids);
      const lacked = [...copy].map(([id, old]) => {
        const held = new Set((promoted.get(id)?.events ?? []).map((e) => e.seq));
        return old.events.filter((e) => !held.has(e.seq)).length;
      });
      // The figures server/README.md quotes: what was lost at the switch, and how each session came out of it.
      console.log(
        `${synchronous ? 'synchronous' : 'asynchronous'} failover: the new primary lacked ${lacked.reduce((a, n) => a + n, 0)} ` +
          `committed events of ${lacked.filter((n) => n > 0).length} of ${copy.size} sessions; afterwards ` +
          `${[...settled.ended.values()].filter((s) => s.status === 'completed').length} of ${ids.length} completed, ` +
          `${new Set(settled.interruptions.map((i) => i.id)).size} of them after an interruption, continued`,
      );
      const records = await storedRecords(databaseUrl);
      for (const [id, old] of copy) {
        const record = records.get(id);
        if (!record)
          problems.push(`${id}: in the old primary's copy (${old.status}, ${old.events.length} events), not after the failover`);
        // Synchronously nothing may be lost: every event of the copy, recovery or not; but a recovery's end that was
        // the copy's last, committed there as the primary went, was never acknowledged, so the standby need not hold it.
        else if (synchronous) {
          const last = end(old.events.at(-1));
          const unacknowledged = last?.status === 'interrupted' && !record.events.some((e) => e.seq === last.seq);
          for (const d of disagreements(
            unacknowledged ? old.events.slice(0, -1) : old.events,
            record.events,
            Number.POSITIVE_INFINITY,
          ))
            problems.push(`${id}: ${d}`);
        } else for (const d of disagreements(old.events, record.events)) problems.push(`${id}: ${d}`);
      }
      // No follower hangs: a lease window after every session ended, each has reached an end or an error.
      await window();
      const followed = new Map(ids.map((id, i) => [id, followers[i]!]));
      if (synchronous) problems.push(...(await shownProblems(followed, databaseUrl, 'a follower')));
      else
        for (const [id, f] of followed)
          if (!f.done) problems.push(`${id}: follower still open, last shown ${said(f.events.at(-1))}`);
      problems.push(...exited(instances.instances));
      for (const f of followers) f.abort();
      if (problems.length > 0) await explain(databaseUrl, instances.instances);
      return { problems };
    } finally {
      await instances?.stop();
      await rig.stop();
    }
  }

  it('asynchronous, the standby 1 s behind: nothing completed with a hole, nothing accepted vanishes, no follower hangs', async () => {
    const { problems } = await failover({ synchronous: false, linkDelayMs: 1000 });
    expect(problems).toStrictEqual([]);
  }, 240_000);

  it('synchronous: nothing lost, every session holds all of the old primary’s copy', async () => {
    const { problems } = await failover({ synchronous: true, linkDelayMs: 20 });
    expect(problems).toStrictEqual([]);
  }, 240_000);
});

describe.skipIf(!clusterAvailable || !replicationBinaries())('two instances on a primary with a slow synchronous standby', () => {
  // Synchronous replication over a slow link: each commit takes a few hundred milliseconds, visible only once the
  // standby has it, as on a busy or distant database; what is shown before its commit can then be read before it.
  let rig: Replication;
  let instances: Instances;
  let c: ClientOf;
  let a: Instance;
  let b: Instance;
  beforeAll(async () => {
    rig = await startReplication({ synchronous: true, linkDelayMs: 200 });
    instances = await startInstances({ databaseUrl: await rig.createDatabase(), tokenDelayMs: 10, env: SETTINGS });
    [a, b] = instances.instances as [Instance, Instance];
    c = clientOf(instances, (await signIn(instances.proxyUrl, instances.admin.username, instances.admin.password)).token);
  }, 120_000);
  afterAll(async () => {
    await instances?.stop();
    await rig?.stop();
  }, 60_000);

  it('a session is found on both instances the moment it is announced: 0 of 50 tries 404, and a follow attaches', async () => {
    const misses = { runner: [] as string[], other: [] as string[], follow: [] as string[] };
    for (const batch of range(10)) {
      await Promise.all(
        range(5).map(async (k) => {
          const i = batch * 5 + k;
          const [runner, other] = i % 2 === 0 ? [a, b] : [b, a];
          const stream = c.stream(`Announced ${i}?`, { at: runner.url, rounds: 2 });
          try {
            const { sessionId: id } = await stream.seen(() => true);
            const follow = c.follow(id, { at: other.url });
            const [here, there, attached] = await Promise.all([
              c.call(`/sessions/${id}`, {}, runner.url),
              c.call(`/sessions/${id}`, {}, other.url),
              Promise.race([follow.seen(() => true).then(() => undefined), follow.closed.then((why) => why ?? 'closed empty')]),
            ]);
            follow.abort();
            if (here.status !== 200) misses.runner.push(`${id}: ${here.status}`);
            if (there.status !== 200) misses.other.push(`${id}: ${there.status}`);
            if (attached !== undefined) misses.follow.push(`${id}: ${attached.slice(0, 80)}`);
          } finally {
            stream.abort();
          }
        }),
      );
    }
    // Counted out of 50, with the first few named.
    const counts = { runner: misses.runner.length, other: misses.other.length, follow: misses.follow.length };
    const named = Object.fromEntries(Object.entries(misses).map(([k, v]) => [k, v.slice(0, 3)]));
    expect(counts, JSON.stringify(named)).toStrictEqual({ runner: 0, other: 0, follow: 0 });
  }, 180_000);
});

describe.skipIf(!clusterAvailable)('two instances, each on a database link of its own', () => {
  let cluster: Cluster;
  let c: ClientOf;
  let a: Instance;
  let b: Instance;
  beforeAll(async () => {
    cluster = await startCluster({ instances: 2, tokenDelayMs: 10, databaseLinks: true, env: SETTINGS });
    [a, b] = cluster.instances as [Instance, Instance];
    c = clientOf(cluster, (await signIn(cluster.proxyUrl, cluster.admin.username, cluster.admin.password)).token);
  }, 120_000);
  afterAll(() => cluster?.stop(), 60_000);

  /** The session read on `at` until it has ended for good: neither `running` nor `interrupted` (a hand-over goes on). */
  const endedOn = async (id: string, at: string): Promise<Session> => {
    let session: Session | undefined;
    await until(async () => {
      session = await c.session(id, at).catch(() => undefined);
      return session !== undefined && session.status !== 'running' && session.status !== 'interrupted';
    });
    return session!;
  };
  /** Stored with an answer, as `at` reads it. */
  const answered = (id: string, at: string) =>
    until(async () => ((await c.session(id, at).catch(() => undefined))?.rounds[0]?.answers.length ?? 0) > 0);
  const continuedBy = (instance: Instance, id: string) =>
    new RegExp(`continuing a debate another instance left[^\\n]*${id}`).test(instance.run.stdout);

  it('a dead instance’s debates cancelled on the other: answered cancelled, and nothing continues them afterwards', async () => {
    const victims = await Promise.all(range(4).map((i) => c.start(`Cancelled once my instance died ${i}?`, { at: a.url })));
    await Promise.all(victims.map((id) => answered(id, b.url)));
    const problems: string[] = [];
    try {
      await cluster.kill(0);
      const answers = await Promise.all(victims.map((id) => c.call(`/sessions/${id}/cancel`, { method: 'POST' }, b.url)));
      for (const [i, res] of answers.entries()) {
        const body = (await res.json()) as Session;
        if (res.status !== 200 || body.status !== 'cancelled')
          problems.push(
            `${victims[i]}: the cancel answered ${res.status} ${res.status === 200 ? body.status : (body as { code?: string }).code}`,
          );
      }
      const then = await storedRecords(cluster.databaseUrl);

      // Afterwards, proved by B's sweep and hand-over of a later orphan of A's: A back, a debate on it, A killed again.
      await cluster.restart(0);
      const later = await c.start('Handed over after the cancels?', { at: a.url });
      await answered(later, b.url);
      await cluster.kill(0);
      await until(() => continuedBy(b, later));
      const handedOver = await endedOn(later, b.url);
      if (handedOver.status !== 'completed') problems.push(`${later} (handed over after the cancels): ${handedOver.status}`);

      const now = await storedRecords(cluster.databaseUrl);
      for (const id of victims) {
        const s = await c.session(id, b.url);
        if (s?.status !== 'cancelled') problems.push(`${id}: ${s ? s.status : 'not found'} afterwards`);
        if (continuedBy(b, id)) problems.push(`${id}: continued by ${b.id} after the cancel`);
        const events = now.get(id)?.events ?? [];
        const before = then.get(id)?.events.length ?? 0;
        if (events.length !== before) problems.push(`${id}: ${events.length - before} events written after the cancel`);
        if (end(events.at(-1))?.status !== 'cancelled') problems.push(`${id}: the record ends with ${said(events.at(-1))}`);
      }
    } finally {
      if (!running(a.run)) await cluster.restart(0);
    }
    problems.push(...exited(cluster.instances));
    expect(problems).toStrictEqual([]);
  }, 180_000);

  /**
   * A stream through a hand-over: it ends with the real end, in seq order, and holds the session's whole record. What
   * it showed besides: an interrupted end, and deltas shown live ahead of a commit the stopped instance never made.
   */
  const oneStream = async (id: string, w: Watch): Promise<string[]> => {
    await allClosed([w]);
    const how = w.done ? `ended ${(await w.closed) ?? 'cleanly'}` : 'is still open';
    const problems: string[] = [];
    if (end(w.events.at(-1))?.status !== 'completed') problems.push(`the stream ${how}, last ${said(w.events.at(-1))}`);
    const record = (await storedRecords(cluster.databaseUrl)).get(id)?.events ?? [];
    const shown = new Map(w.events.map((e) => [e.seq, e]));
    const seqs = w.events.map((e) => e.seq);
    if (
      !isDeepStrictEqual(
        seqs,
        [...seqs].sort((x, y) => x - y),
      ) ||
      shown.size !== seqs.length
    )
      problems.push('the stream is out of order');
    const unseen = record.filter((e) => !isDeepStrictEqual(shown.get(e.seq), e));
    if (unseen.length > 0)
      problems.push(`the stream lacks ${unseen.length} events of the record, from ${said(unseen[0])} to ${said(unseen.at(-1))}`);
    const stored = new Set(record.map((e) => e.seq));
    const extra = w.events.filter(
      (e) => !stored.has(e.seq) && e.type !== 'answer.delta' && e.type !== 'verdict.delta' && end(e)?.status !== 'interrupted',
    );
    if (extra.length > 0) problems.push(`the stream showed ${extra.length} events the record lacks, from ${said(extra[0])}`);
    return problems;
  };

  it('a follower on the other instance keeps one stream through a hand-over, to the real end', async () => {
    const id = await c.start('Followed across a hand-over?', { at: a.url });
    const follower = c.follow(id, { at: b.url });
    await follower.seen((e) => e.type === 'answer.completed');
    try {
      await cluster.kill(0);
      const problems = await oneStream(id, follower);
      expect([...problems, (await endedOn(id, b.url)).status]).toStrictEqual(['completed']);
    } finally {
      follower.abort();
      if (!running(a.run)) await cluster.restart(0);
    }
  }, 120_000);

  it('the client that started a run keeps one stream through its instance’s drain and the hand-over, to the real end', async () => {
    const stream = c.stream('Streamed while my instance drains?', { at: a.url });
    const { sessionId: id } = await stream.seen((e) => e.type === 'answer.completed');
    try {
      // Drained for 0.3 s, then the run is interrupted and handed over to B. The client is told where the debate went
      // on (`stream.moved`) and reads on there, as the SDK, the CLI and the UI do: one debate, read to its end.
      await cluster.kill(0, 'SIGTERM');
      await allClosed([stream]);
      const moved = stream.events.at(-1);
      expect(moved?.type, `the stream ended with ${said(moved)}`).toBe('stream.moved');
      const rest = c.follow(id, { at: b.url, after: moved!.seq });
      await allClosed([rest]);
      const read: Watch = { ...rest, events: [...stream.events.slice(0, -1), ...rest.events] };
      const problems = await oneStream(id, read);
      expect([...problems, (await endedOn(id, b.url)).status]).toStrictEqual(['completed']);
    } finally {
      stream.abort();
      // npm has gone; its server drains on after it, and exits once it has handed over.
      await until(async () => {
        try {
          await (await fetch(`${a.url}/health`)).body?.cancel();
          return false;
        } catch {
          return true;
        }
      });
      await cluster.restart(0);
    }
  }, 120_000);

  it('one instance cut off from the database past its lease: its clients never see a verdict or an end that is not stored', async () => {
    const streams = range(2).map((i) => c.stream(`Partitioned while streamed ${i}?`, { at: a.url }));
    const detached = await Promise.all(range(2).map((i) => c.start(`Partitioned while followed ${i}?`, { at: a.url })));
    const watches = [...streams, ...detached.map((id) => c.follow(id, { at: a.url }))];
    const ids = await Promise.all(watches.map(async (w) => (await w.seen((e) => e.type === 'answer.completed')).sessionId));
    await Promise.all(ids.map((id) => answered(id, b.url)));

    a.databaseLink!.silence();
    // Held until B has taken each debate over and ended it: longer than A's lease, as those events show.
    const ended = await Promise.all(ids.map((id) => endedOn(id, b.url)));
    a.databaseLink!.release();
    await allClosed(watches);

    const problems = await shownProblems(new Map(ids.map((id, i) => [id, watches[i]!])), cluster.databaseUrl, `${a.id}'s client`);
    for (const [i, w] of watches.entries()) if (!end(w.events.at(-1))) problems.push(`${ids[i]}: ${a.id}'s client saw no end`);
    problems.push(
      ...(await recordProblems(
        { ended: new Map(ids.map((id, i) => [id, ended[i]!])), notFound: [], stuck: [], interruptions: [] },
        cluster.databaseUrl,
        ids,
      )),
    );
    for (const id of ids) if (!continuedBy(b, id)) problems.push(`${id}: not taken over by ${b.id}`);
    problems.push(...exited(cluster.instances));
    expect(problems).toStrictEqual([]);
  }, 180_000);
});

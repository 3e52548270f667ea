/**
 * Issue 23's proof, as a team runs the service: two real instances on one PostgreSQL behind nginx (the sample proxy
 * configuration as it is, round robin). Database faults mid-debate (every connection terminated, a PostgreSQL
 * restart) end no process and lose no debate; a killed instance's runs are told to followers once its lease expires; cancel
 * and delete work through the proxy whichever instance runs the debate; SIGTERM drains.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Consilium } from '../../sdk/src/facade/consilium.js';
import type { DebateEvent, Session } from '../../sdk/src/generated/types.gen.js';
import { type Cluster, clusterAvailable, startCluster } from '../support/cluster.js';
import { captured, running, signIn } from '../support/process.js';
import { readSse } from '../support/sse.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
const METRICS_TOKEN = 'metrics-failover-0123456789abcdef';

describe.skipIf(!clusterAvailable)('a team on PostgreSQL: two instances behind nginx', () => {
  let cluster: Cluster;
  let token: string;
  beforeAll(async () => {
    cluster = await startCluster({
      instances: 2,
      tokenDelayMs: 10,
      env: { CONSILIUM_DRAIN_MS: '30000', CONSILIUM_METRICS_TOKEN: METRICS_TOKEN },
    });
    token = (await signIn(cluster.proxyUrl, cluster.admin.username, cluster.admin.password)).token;
  }, 120_000);
  afterAll(() => cluster?.stop(), 60_000);

  /** `fetch` with the admin's token, through the proxy or straight to an instance (`at`). */
  const call = (path: string, init: RequestInit = {}, at = cluster.proxyUrl) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(`${at}${path}`, { ...init, headers });
  };
  const start = async (question: string, at?: string, rounds = 2): Promise<string> => {
    const res = await call(
      '/consilium/deep',
      { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ question, rounds, detach: true }) },
      at,
    );
    expect(res.status, await res.clone().text()).toBe(202);
    return ((await res.json()) as { sessionId: string }).sessionId;
  };
  const session = async (id: string, at?: string): Promise<Session> =>
    (await (await call(`/sessions/${id}`, {}, at)).json()) as Session;
  /** Reads the session until it has ended (the instances recover and retry on their own; the test timeout bounds it). */
  const ended = async (id: string): Promise<Session> => {
    for (;;) {
      const res = await call(`/sessions/${id}`);
      expect(res.status, await res.clone().text()).toBe(200);
      const s = (await res.json()) as Session;
      if (s.status !== 'running') return s;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** Reads the session until it is `completed` (through interruptions and continuations); the test timeout bounds it. */
  const completed = async (id: string): Promise<Session> => {
    for (;;) {
      const s = await ended(id);
      if (s.status === 'completed') return s;
      expect(s.status).toBe('interrupted');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** Until nothing listens at `url` (a draining instance closes its port first, then exits once drained). */
  const closed = async (url: string) => {
    for (;;) {
      try {
        await (await fetch(`${url}/health`)).body?.cancel();
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** The debates each instance runs now: its recorder's own count (`consilium_debates_running`). */
  const runningDebates = () =>
    Promise.all(
      cluster.instances.map(async (instance) => {
        const res = await fetch(`${instance.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
        const count = /^consilium_debates_running (\d+)$/m.exec(await res.text())?.[1];
        expect(count, `${instance.id}'s metrics`).toBeDefined();
        return Number(count);
      }),
    );
  const everyInstanceRuns = () => {
    for (const instance of cluster.instances)
      expect(running(instance.run), `${instance.id} exited${captured(instance.run)}`).toBe(true);
  };
  const noUnhandled = () => {
    for (const instance of cluster.instances)
      expect(instance.run.stderr + instance.run.stdout).not.toMatch(/Unhandled|uncaught/i);
  };

  it('every database connection terminated mid-debate, twice: no instance exits, every debate completes', async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => start(`Connections cut under debate ${i}?`)));
    for (let i = 0; i < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 700));
      await cluster.postgres.terminateBackends(cluster.databaseUrl);
    }
    const sessions = await Promise.all(ids.map(ended));
    expect(sessions.map((s) => s.status)).toStrictEqual(ids.map(() => 'completed'));
    everyInstanceRuns();
    noUnhandled();
  }, 90_000);

  it('PostgreSQL restarted mid-debate: no instance exits, every debate completes', async () => {
    const ids = await Promise.all(Array.from({ length: 4 }, (_, i) => start(`The database restarts under debate ${i}?`)));
    await new Promise((resolve) => setTimeout(resolve, 700));
    await cluster.postgres.restart();
    const sessions = await Promise.all(ids.map(ended));
    expect(sessions.map((s) => s.status)).toStrictEqual(ids.map(() => 'completed'));
    for (const s of sessions) expect(s.verdict).toBeDefined();
    everyInstanceRuns();
    noUnhandled();
  }, 90_000);

  it('cancel and delete stop the debate whichever instance runs it, through the proxy or the other one; a deleted session stays gone', async () => {
    // Half the debates started through the proxy; the others on one instance and stopped on the other (the proxy's
    // round robin alone may send each stop to the instance that runs the debate).
    const [a, b] = cluster.instances as [Cluster['instances'][0], Cluster['instances'][0]];
    const crossed = (i: number) => (i % 2 === 0 ? [a, b] : [b, a]);
    const startMany = (what: string, count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          start(`${what} ${i}?`, i < count / 2 ? undefined : crossed(i)[0]!.url).then((id) => ({
            id,
            at: i < count / 2 ? undefined : crossed(i)[1]!.url,
          })),
        ),
      );
    const cancelled = await startMany('Cancelled', 6);
    const answers = await Promise.all(cancelled.map(({ id, at }) => call(`/sessions/${id}/cancel`, { method: 'POST' }, at)));
    expect(answers.map((r) => r.status)).toStrictEqual(cancelled.map(() => 200));
    expect((await Promise.all(answers.map((r) => r.json() as Promise<Session>))).map((s) => s.status)).toStrictEqual(
      cancelled.map(() => 'cancelled'),
    );

    const deleted = await startMany('Deleted', 6);
    expect(
      (await Promise.all(deleted.map(({ id, at }) => call(`/sessions/${id}`, { method: 'DELETE' }, at)))).map((r) => r.status),
    ).toStrictEqual(deleted.map(() => 204));
    // Until no instance runs a debate any more (each run of a deleted session has stopped, so nothing of it can be
    // written again): none comes back, on either instance.
    await expect.poll(runningDebates, { timeout: 45_000, interval: 100 }).toStrictEqual(cluster.instances.map(() => 0));
    for (const instance of cluster.instances) {
      for (const { id } of deleted) expect((await call(`/sessions/${id}`, {}, instance.url)).status).toBe(404);
    }
  }, 60_000);

  it('a killed instance: a follower on the other keeps one stream through the hand-over to the real end; restarted, it runs again', async () => {
    const [a, b] = cluster.instances as [Cluster['instances'][0], Cluster['instances'][0]];
    const id = await start('Who tells my follower when my instance dies?', a.url, 3);
    const events: DebateEvent[] = [];
    const follower = (async () => {
      for await (const message of readSse(await call(`/sessions/${id}/events`, {}, b.url)))
        events.push(JSON.parse(message.data) as DebateEvent);
    })();
    // Killed mid-debate, once B's follower has seen its first answer.
    while (!events.some((e) => e.type === 'answer.completed')) await new Promise((resolve) => setTimeout(resolve, 20));
    await cluster.kill(0);
    // A's lease expires (6 s, swept every 2 s by default), the session ends interrupted and is handed over, and the
    // instance that takes it continues it: the follower's stream goes on to the real end. The test's timeout bounds it.
    await follower;
    const ends = events.filter((e) => e.type === 'session.ended') as Extract<DebateEvent, { type: 'session.ended' }>[];
    expect(ends.map((e) => e.status)).toStrictEqual(['completed']);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toStrictEqual([...new Set(seqs)].sort((x, y) => x - y));
    const done = await completed(id);
    expect(done.verdict).toBeDefined();
    expect(b.run.stdout).toMatch(new RegExp(`continuing a debate another instance left.*${id}`));
    // The stored record is the stream the follower read: the same events, in order.
    const replayed: DebateEvent[] = [];
    for await (const message of readSse(await call(`/sessions/${id}/events`)))
      replayed.push(JSON.parse(message.data) as DebateEvent);
    expect(replayed.map((e) => e.seq)).toStrictEqual(seqs.filter((s) => replayed.some((e) => e.seq === s)));
    expect(replayed.at(-1)).toStrictEqual(events.at(-1));
    await cluster.restart(0);
    expect((await fetch(`${a.url}/ready`)).status).toBe(200);
  }, 90_000);

  it('SIGTERM drains: the port closes at once, a running debate finishes; a second signal interrupts what still runs', async () => {
    const a = cluster.instances[0]!;
    const finishing = await start('Finished while my instance drains?', a.url);
    // `npm start` passes the signal on and exits; its server drains on after it.
    await cluster.kill(0, 'SIGTERM');
    await closed(a.url);
    // New debates go to the other instance meanwhile.
    expect((await session(await start('Taken by the other instance?'))).status).not.toBe(undefined);
    expect(await ended(finishing)).toMatchObject({ status: 'completed' });
    expect(a.run.stdout).toMatch(/"msg":"stopping"/);
    await cluster.restart(0);

    const interrupted = await start('Interrupted by an impatient stop?', a.url, 3);
    // A client streaming a debate from A, through the SDK: its POST goes to A, anything after through the proxy.
    const sdk = new Consilium({
      baseUrl: cluster.proxyUrl,
      token,
      fetch: (input, init) => {
        const request = new Request(input, init);
        return fetch(request.method === 'POST' ? request.url.replace(cluster.proxyUrl, a.url) : request.url, request);
      },
    });
    const streamed: DebateEvent[] = [];
    const streaming = (async () => {
      for await (const event of sdk.debates.stream('Streamed through an impatient stop?', { rounds: 3 })) streamed.push(event);
    })();
    while (!streamed.some((e) => e.type === 'answer.completed')) await new Promise((resolve) => setTimeout(resolve, 20));
    const group = -a.run.child.pid!;
    process.kill(group, 'SIGTERM');
    await closed(a.url);
    process.kill(group, 'SIGTERM');
    // Handed over: the other instance continues it to its verdict.
    expect((await completed(interrupted)).verdict).toBeDefined();
    // The streaming client was told where the debate went on, and read it there to its real end, in one sequence.
    await streaming;
    expect(streamed.filter((e) => e.type === 'session.ended').map((e) => (e as { status: string }).status)).toStrictEqual([
      'completed',
    ]);
    const seqs = streamed.map((e) => e.seq);
    expect(seqs).toStrictEqual([...new Set(seqs)].sort((x, y) => x - y));
    expect(a.run.stdout).toMatch(/debates interrupted by the stop/);
    expect(cluster.instances[1]!.run.stdout).toMatch(new RegExp(`continuing a debate another instance left.*${interrupted}`));
    await cluster.restart(0);
    everyInstanceRuns();
  }, 90_000);
});

/**
 * The harness of `test/support/cluster.ts`, proved: two real instances on one PostgreSQL behind nginx running the
 * sample proxy configuration. Requests through the proxy reach both instances, and the live one alone while the other
 * is killed; an event stream passes through unbuffered (its first event arrives while the debate still runs); and while PostgreSQL is down each instance
 * answers `/ready` 503 and comes back to 200 once it is up again, neither of them exiting meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, clusterAvailable, startCluster } from '../support/cluster.js';
import { captured, running, signIn } from '../support/process.js';
import { SseParser } from '../support/sse.js';

/** Asks `/ready` until it answers `status`: the instances notice on their own, within a probe or a reconnect. */
async function readyUntil(url: string, status: number): Promise<Response> {
  for (;;) {
    const res = await fetch(`${url}/ready`);
    if (res.status === status) return res;
    await res.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!clusterAvailable)('two instances behind nginx on one PostgreSQL', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ instances: 2, tokenDelayMs: 10 });
  }, 120_000);
  afterAll(() => cluster?.stop(), 30_000);

  const everyInstanceRuns = () => {
    for (const instance of cluster.instances)
      expect(running(instance.run), `${instance.id} exited${captured(instance.run)}`).toBe(true);
  };

  it('spreads requests over both instances, round robin', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${cluster.proxyUrl}/ready`);
      expect(res.status).toBe(200);
      seen.push(((await res.json()) as { instance: string }).instance);
    }
    expect(new Set(seen)).toEqual(new Set(['instance-0', 'instance-1']));
    // Each instance directly, too: the ids are theirs.
    for (const instance of cluster.instances) {
      expect(await (await fetch(`${instance.url}/ready`)).json()).toEqual({ status: 'ready', instance: instance.id });
    }
  });

  it('passes an event stream through unbuffered: the first event arrives while the debate still runs', async () => {
    // Signing in through the proxy checks the forwarded Host too: the cookie's origin check must see the proxy's.
    const admin = await signIn(cluster.proxyUrl, cluster.admin.username, cluster.admin.password);
    const res = await admin.fetch('/consilium/deep/stream', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Does the proxy hold events back?', rounds: 2 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Its first piece is the first event alone, as the instance wrote it, not the stream held back and passed on late.
    const reader = res.body!.getReader();
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const firstPiece = await reader.read();
    expect(firstPiece.value!.byteLength).toBeLessThan(2048);
    const messages = parser.feed(decoder.decode(firstPiece.value, { stream: true }));
    const first = JSON.parse(messages[0]!.data) as { type: string; sessionId: string };
    expect(first.type).toBe('session.started');
    // Read through the proxy (either instance), once its first write has committed: stored, and still running.
    let stored = await admin.fetch(`/sessions/${first.sessionId}`);
    while (stored.status === 404) {
      await stored.body?.cancel();
      stored = await admin.fetch(`/sessions/${first.sessionId}`);
    }
    expect(stored.status).toBe(200);
    expect(((await stored.json()) as { status: string }).status).toBe('running');
    let last: { type: string; status?: string } = first;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const message of parser.feed(decoder.decode(value, { stream: true }))) last = JSON.parse(message.data);
    }
    expect(last).toMatchObject({ type: 'session.ended', status: 'completed' });
  }, 60_000);

  it('keeps answering through the proxy while an instance is killed, and spreads again once it restarts', async () => {
    const instanceBehindProxy = async () => {
      const res = await fetch(`${cluster.proxyUrl}/ready`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { instance: string }).instance;
    };
    await cluster.kill(1);
    expect(running(cluster.instances[1]!.run)).toBe(false);
    // nginx passes a refused connection on to the next server: every request still reaches the live one.
    for (let i = 0; i < 4; i++) expect(await instanceBehindProxy()).toBe('instance-0');
    await cluster.restart(1);
    // Back in turn once nginx's fail_timeout (1 s in the harness) has passed.
    while ((await instanceBehindProxy()) !== 'instance-1');
    expect(running(cluster.instances[0]!.run)).toBe(true);
  }, 60_000);

  it('answers /ready 503 while PostgreSQL is down and 200 once it is back, no instance exiting', async () => {
    await cluster.postgres.halt();
    try {
      for (const instance of cluster.instances) {
        const res = await readyUntil(instance.url, 503);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        const problem = (await res.json()) as { code: string; detail: string };
        expect(problem.code).toBe('not_ready');
        expect(problem.detail).toContain(`Instance ${instance.id} is not ready: database`);
      }
      // Liveness is not readiness: the processes live on.
      for (const instance of cluster.instances) expect((await fetch(`${instance.url}/health`)).status).toBe(200);
      everyInstanceRuns();
    } finally {
      await cluster.postgres.start();
    }
    for (const instance of cluster.instances) await readyUntil(instance.url, 200);
    expect((await fetch(`${cluster.proxyUrl}/ready`)).status).toBe(200);
    everyInstanceRuns();
  }, 60_000);
});

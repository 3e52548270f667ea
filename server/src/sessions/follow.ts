/**
 * A session's events for one follower: the stored ones after `afterSeq`, then live ones until the session ends.
 * Live events are caught from before the stored ones are read, and each `seq` is sent once, in order. From
 * another instance, events come live ahead of their commit (`committed` false): one is sent when it follows the
 * last sent, and held until then; committed events, which may skip numbers (a recovery's end), are the record and
 * fill any gap.
 *
 * The table is the truth, a notice only a nudge: a follower that hears nothing for a while reads the stored events
 * itself, and ends a session whose instance is gone as recovery would, so it never waits on a run that no longer
 * exists. On a shared store an `interrupted` end is held a while: when another instance continues the session
 * (a hand-over), the follower reads on in the same stream instead.
 */
import type { DebateEvent, Session } from '../../../sdk/src/generated/types.gen.js';
import type { LiveSession, SessionRecorder } from './recorder.js';
import type { SessionStore } from './store.js';

export interface FollowOptions {
  store: SessionStore;
  recorder: SessionRecorder;
  /** How long a quiet follower waits before it reads the store itself. */
  checkEveryMs: number;
  /** How long an `interrupted` end is held for a hand-over to continue the session (shared stores). */
  handOverWaitMs: number;
}

type Arrival = { event: DebateEvent; committed: boolean };

export async function followSession(
  { store, recorder, checkEveryMs, handOverWaitMs }: FollowOptions,
  session: Session,
  afterSeq: number,
  send: (event: DebateEvent) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  const shared = store.watch !== undefined;
  const handsOver = shared && store.handOver !== undefined;
  let last = afterSeq;
  let ended = false;
  /** An `interrupted` end not sent yet, and until when it waits for the debate to go on. */
  let paused: { event: DebateEvent; until: number } | undefined;
  const queue: Arrival[] = [];
  const ahead = new Map<number, DebateEvent>();
  let heard = false;
  let wake: (() => void) | undefined;
  const arrive = (event: DebateEvent, committed = true) => {
    queue.push({ event, committed });
    heard = true;
    wake?.();
  };

  const sendOne = async (event: DebateEvent) => {
    if (event.type === 'session.ended' && event.status === 'interrupted' && handsOver && !paused) {
      // A recent end only (a replay of an old one is not kept waiting), and never past the wait, whatever the clock.
      const left = Math.min(handOverWaitMs, Date.parse(event.ts) + handOverWaitMs - Date.now());
      if (left > 0) {
        paused = { event, until: performance.now() + left };
        last = event.seq;
        return;
      }
    }
    // The continued debate's first event: the end was not the end.
    if (paused && event.seq > paused.event.seq) paused = undefined;
    last = event.seq;
    await send(event);
    if (event.type === 'session.ended' || (event as { type: string }).type === 'stream.moved') ended = true;
  };
  const deliver = async (items: Iterable<Arrival>) => {
    for (const { event, committed } of [...items].sort((a, b) => a.event.seq - b.event.seq)) {
      // An abort (access ended) stops even a long replay between two events.
      if (signal.aborted) return;
      if (event.seq <= last) continue;
      // A live event that follows the last sent goes out of `ahead` at once, below.
      if (committed) await sendOne(event);
      else ahead.set(event.seq, event);
      for (let next = ahead.get(last + 1); next && !signal.aborted; next = ahead.get(last + 1)) {
        ahead.delete(next.seq);
        await sendOne(next);
      }
    }
    for (const seq of ahead.keys()) if (seq <= last) ahead.delete(seq);
  };
  /** Reads what the store holds after the last sent; a session whose instance is gone is ended first. */
  const catchUp = async () => {
    let events = await store.events(session.id, last);
    if (events.length === 0 && !paused && store.recoverOrphan) {
      await store.recoverOrphan(session.id, new Date());
      events = await store.events(session.id, last);
    }
    await deliver(events.map((event) => ({ event, committed: true })));
  };

  // Where live events come from: the run here, or (shared stores) the store's notices of another instance's.
  let source: 'live' | 'store' | undefined;
  let stop: () => unknown = () => undefined;
  let caught: DebateEvent[] = [];
  const live = recorder.live(session.id);
  if (live) {
    source = 'live';
    stop = live.subscribe(arrive);
    caught = [...live.released];
  } else if (store.watch && (session.status === 'running' || (handsOver && session.status === 'interrupted'))) {
    source = 'store';
    stop = await store.watch(session.id, arrive);
  }
  try {
    await deliver([...(await store.events(session.id, afterSeq)), ...caught].map((event) => ({ event, committed: true })));
    const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    while (source && !ended && !signal.aborted) {
      if (queue.length === 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const wait = paused ? Math.max(0, Math.min(checkEveryMs, paused.until - performance.now())) : checkEveryMs;
        const tick = new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)));
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted, tick]);
        clearTimeout(timer);
        wake = undefined;
      }
      await deliver(queue.splice(0));
      if (ended || signal.aborted) break;
      if (paused && source === 'live' && store.watch) {
        // The run here was lost (this instance's hold lapsed): the debate goes on, if at all, elsewhere.
        await stop();
        source = 'store';
        stop = await store.watch(session.id, arrive);
        await catchUp();
      }
      if (paused && performance.now() >= paused.until) break;
      if (!heard && queue.length === 0 && source === 'store') await catchUp();
      heard = false;
    }
    // Nobody went on with it: the end it had is the end.
    if (paused && !signal.aborted) await send(paused.event);
  } finally {
    await stop();
  }
}

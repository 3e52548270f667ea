/**
 * What a database holds of its sessions, read with SQL and no instance in between (an old primary's copy has none),
 * and the checks a failover test makes of them: a record's holes, where two copies of a session disagree, a
 * completed session's missing answers, and what a client was shown that the record does not hold.
 */
import { isDeepStrictEqual } from 'node:util';
import { Client } from 'pg';
import type { DebateEvent, Session } from '../../sdk/src/generated/types.gen.js';
import { UNSAVED_SEQ_LIMIT } from '../../server/src/sessions/store.js';
import { joinEvents, unpackEvents } from '../../server/src/store/archive.js';

export interface StoredRecord {
  id: string;
  status: Session['status'];
  missingSlots: number[];
  /** Every event, archived or not, in seq order. */
  events: DebateEvent[];
}

/** Every session the database at `url` holds, by id, read in one snapshot. */
export async function storedRecords(url: string): Promise<Map<string, StoredRecord>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const sessions = await client.query<{ id: string; status: Session['status']; missing_slots: number[] }>(
      'SELECT id, status, missing_slots FROM sessions',
    );
    const rows = await client.query<{ session_id: string; body: DebateEvent }>(
      'SELECT session_id, body FROM events ORDER BY session_id, seq',
    );
    const archives = await client.query<{ session_id: string; body: Buffer }>('SELECT session_id, body FROM event_archives');
    await client.query('COMMIT');
    const stored = new Map<string, DebateEvent[]>();
    for (const row of rows.rows) {
      const list = stored.get(row.session_id) ?? [];
      list.push(row.body);
      stored.set(row.session_id, list);
    }
    const archived = new Map(archives.rows.map((a) => [a.session_id, unpackEvents(a.body)]));
    return new Map(
      sessions.rows.map((s) => [
        s.id,
        {
          id: s.id,
          status: s.status,
          missingSlots: s.missing_slots,
          events: joinEvents(archived.get(s.id) ?? [], stored.get(s.id) ?? [], 0),
        },
      ]),
    );
  } finally {
    await client.end();
  }
}

/**
 * The seq steps recovery leaves, and only recovery: its `session.ended` (interrupted) is numbered above anything the
 * stopped run could have shown, and a continued run's events come after that end, which the continue removes.
 */
export const RECOVERY_JUMPS = { end: UNSAVED_SEQ_LIMIT + 1, continued: UNSAVED_SEQ_LIMIT + 2 } as const;

const isEnd = (e: DebateEvent | undefined): e is Extract<DebateEvent, { type: 'session.ended' }> => e?.type === 'session.ended';

/** Whether `next` follows `prev` across a recovery (not one after the other). */
function recoveryJump(prev: DebateEvent, next: DebateEvent): boolean {
  const step = next.seq - prev.seq;
  return (step === RECOVERY_JUMPS.end && isEnd(next) && next.status === 'interrupted') || step === RECOVERY_JUMPS.continued;
}

/**
 * Where one session's events (in seq order) are not one unbroken sequence from `session.started` at 1 to at most one
 * end, recovery's jumps aside: each break said in words, none when the record is whole.
 */
export function sequenceBreaks(events: readonly DebateEvent[]): string[] {
  const first = events[0];
  if (!first) return ['no events'];
  const breaks: string[] = [];
  if (first.seq !== 1 || first.type !== 'session.started') breaks.push(`starts with ${first.type} at ${first.seq}`);
  for (let i = 1; i < events.length; i++) {
    const prev = events[i - 1]!;
    const next = events[i]!;
    if (isEnd(prev)) breaks.push(`${next.type} at ${next.seq} after the end (${prev.status}) at ${prev.seq}`);
    else if (next.seq !== prev.seq + 1 && !recoveryJump(prev, next)) {
      breaks.push(
        `${next.seq - prev.seq - 1} events missing between ${prev.type} at ${prev.seq} and ${next.type} at ${next.seq}`,
      );
    }
  }
  return breaks;
}

/** The seq after which `events` went through its first recovery, if it did. */
export function recoveredAfter(events: readonly DebateEvent[]): number | undefined {
  for (let i = 1; i < events.length; i++) if (recoveryJump(events[i - 1]!, events[i]!)) return events[i - 1]!.seq;
  return undefined;
}

/**
 * Where `record` (a session's events now) lacks or changed an event of `copy` (an older copy of it, such as the
 * old primary's): every event of the copy must be in the record as it was, up to where the record went through
 * recovery (`upTo`: where to stop instead). Beyond that the copy's events may have been lost and asked again:
 * recovery said so.
 */
export function disagreements(
  copy: readonly DebateEvent[],
  record: readonly DebateEvent[],
  upTo = recoveredAfter(record) ?? Number.POSITIVE_INFINITY,
): string[] {
  const bySeq = new Map(record.map((e) => [e.seq, e]));
  const out: string[] = [];
  let lacking: number[] = [];
  const flush = () => {
    if (lacking.length > 0) out.push(`lacks ${lacking.length} events of the copy, ${lacking[0]} to ${lacking.at(-1)}`);
    lacking = [];
  };
  for (const e of copy) {
    if (e.seq > upTo) break;
    const now = bySeq.get(e.seq);
    if (!now) {
      lacking.push(e.seq);
      continue;
    }
    flush();
    if (!isDeepStrictEqual(now, e)) out.push(`${e.type} at ${e.seq} differs from the copy's (${now.type})`);
  }
  flush();
  return out;
}

/**
 * A completed session's answers that are neither there nor named missing: for each round up to the last it ran,
 * every slot its `round.started` events asked must have an answer, or be in the round's or the session's missing
 * slots. Each lack said in words.
 */
export function missingAnswers(session: Session, events: readonly DebateEvent[]): string[] {
  const asked = new Map<number, Set<number>>();
  for (const e of events) {
    if (e.type !== 'round.started') continue;
    const slots = asked.get(e.round) ?? new Set<number>();
    for (const slot of e.slots) slots.add(slot);
    asked.set(e.round, slots);
  }
  const last = session.earlyStop ? session.earlyStop.afterRound + 1 : session.roundsRequested;
  const out: string[] = [];
  for (let n = 1; n <= last; n++) {
    const round = session.rounds.find((r) => r.number === n);
    if (!round) {
      out.push(`round ${n} is not stored`);
      continue;
    }
    const answered = new Set(round.answers.map((a) => a.slot));
    for (const slot of asked.get(n) ?? []) {
      if (answered.has(slot) || round.missingSlots.includes(slot as never) || session.missingSlots.includes(slot as never))
        continue;
      out.push(`round ${n} lacks slot ${slot}'s answer, not named missing`);
    }
  }
  return out;
}

/** The events a client must never be shown before they are stored. */
const KEPT_TYPES: ReadonlySet<DebateEvent['type']> = new Set(['consensus', 'verdict', 'session.ended']);

/**
 * The verdicts, consensuses and ends a client was shown (`seen`, in order) that `stored` (the session's record) does
 * not hold as shown. An `interrupted` end is the one exception: what a client is told when the store was lost; the
 * record may then say more, once another instance has gone on.
 */
export function shownNotStored(seen: readonly DebateEvent[], stored: readonly DebateEvent[]): string[] {
  const bySeq = new Map(stored.map((e) => [e.seq, e]));
  const out: string[] = [];
  for (const e of seen) {
    if (!KEPT_TYPES.has(e.type)) continue;
    if (isDeepStrictEqual(bySeq.get(e.seq), e)) continue;
    if (isEnd(e) && e.status === 'interrupted') continue;
    out.push(`${e.type}${isEnd(e) ? ` (${e.status}${e.error ? `: ${e.error}` : ''})` : ''} at ${e.seq} was shown, not stored`);
  }
  return out;
}

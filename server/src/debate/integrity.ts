/**
 * The integrity report of a deep session: what a plain vote of the independent answers said, beside the
 * verdict; where each slot started and ended, and why it moved; and flags a reader can act on. Research on
 * multi-agent debate finds that most of its gain is the vote's, that agents move to the majority without a
 * reason, and that models favour their own family: the report shows each of these for the one session.
 *
 * It is read from the session as stored (answers' `POSITION:` lines, the final round's reported changes, the
 * verdict, the peer ranking), so it can be worked out again for any stored session.
 */
import type {
  Answer,
  HeldPosition,
  IntegrityFlag,
  IntegrityReport,
  IntegrityVote,
  PositionDirection,
  Session,
  SlotIntegrity,
  VerdictPosition,
} from '../../../sdk/src/generated/types.gen.js';
import { modelFamily, underlyingModel } from './families.js';
import { positionKey, readPosition } from './positions.js';

type SlotNumber = Answer['slot'];

/** A stated position and its key. */
interface Stated {
  position: string;
  key: string;
}

/** The position an answer states, unless it failed or came from the offline stand-in (which holds none). */
export function statedPosition(answer: Answer): Stated | undefined {
  if (answer.error || answer.offline) return undefined;
  const position = readPosition(answer.text);
  return position === undefined ? undefined : { position, key: positionKey(position) };
}

/**
 * The plurality of the answers' stated positions: the most held one, unless two or more are held as often
 * (`tie`). Positions are listed most held first, then by their first holder's slot.
 */
export function plurality(answers: readonly Answer[]): IntegrityVote & { key?: string } {
  const answered = answers.filter((a) => !a.error);
  const groups = new Map<string, { position: string; slots: SlotNumber[] }>();
  let stated = 0;
  for (const a of [...answered].sort((x, y) => x.slot - y.slot)) {
    const s = statedPosition(a);
    if (!s) continue;
    stated++;
    const group = groups.get(s.key);
    if (group) group.slots.push(a.slot);
    else groups.set(s.key, { position: s.position, slots: [a.slot] });
  }
  const ranked = [...groups.entries()].sort(([, a], [, b]) => b.slots.length - a.slots.length || a.slots[0]! - b.slots[0]!);
  const positions: HeldPosition[] = ranked.map(([, g]) => ({ position: g.position, slots: g.slots }));
  const top = ranked[0];
  const tie = ranked.length > 1 && ranked[1]![1].slots.length === top?.[1].slots.length;
  const base = { answered: answered.length, stated, tie, positions };
  if (!top || tie) return { ...base, share: 0 };
  return {
    ...base,
    key: top[0],
    position: top[1].position,
    slots: top[1].slots,
    share: answered.length === 0 ? 0 : top[1].slots.length / answered.length,
  };
}

/** A reason that only points at the others, with nothing of its own: "most of the panel agreed". */
const POINTS_AT_OTHERS =
  /\b(majority|most (of the )?(others|panel\w*|models|members|responses|answers)|(the )?others?\b( (models|panel\w*|members|responses|answers))?|everyone|everybody|consensus|the panel|all (the )?(others|models))\b/i;
const OWN_GROUNDS =
  /\b(because|since|shows?|showed|shown|pointed|error|mistake|wrong|overlook\w*|miss\w*|evidence|proof|calculat\w*|recomput\w*|check\w*|verif\w*)\b/i;
const NO_REASON = /^(none|n\/?a|no reason|nothing|null|-+|\.+|—|…)?$/i;

/** How a change was justified (see `SlotIntegrity.reason`). */
export function reasonKind(text: string | undefined): 'stated' | 'majority' | 'none' {
  const reason = (text ?? '').trim();
  if (NO_REASON.test(reason)) return 'none';
  const words = reason.split(/\s+/).length;
  if (POINTS_AT_OTHERS.test(reason) && words <= 12 && !OWN_GROUNDS.test(reason)) return 'majority';
  return 'stated';
}

const quoted = (position: string) => `“${position}”`;

function slotList(slots: readonly number[]): string {
  if (slots.length <= 1) return `slot ${slots[0] ?? '?'}`;
  return `slots ${slots.slice(0, -1).join(', ')} and ${slots.at(-1)}`;
}

/** The report for a deep session; undefined for another mode, or one whose first round never happened. */
export function integrityReport(session: Session): IntegrityReport | undefined {
  if (session.mode !== 'deep') return undefined;
  const first = session.rounds.find((r) => r.number === 1);
  if (!first) return undefined;
  const vote = plurality(first.answers);
  const { key: voteKey, ...publicVote } = vote;
  const finalRound = session.rounds.find((r) => r.kind === 'final' && r.number > 1);

  const firsts = new Map<SlotNumber, Stated>();
  const finals = new Map<SlotNumber, Stated>();
  // Every slot a model answered for: the offline stand-in holds no position, so it has no entry.
  const who = new Map<SlotNumber, Answer>();
  for (const a of first.answers.filter((x) => !x.error && !x.offline)) {
    who.set(a.slot, a);
    const s = statedPosition(a);
    if (s) firsts.set(a.slot, s);
  }
  const finalAnswers = finalRound?.answers.filter((a) => !a.error) ?? [];
  for (const a of finalAnswers) {
    if (!who.has(a.slot) && !a.offline) who.set(a.slot, a);
    const s = statedPosition(a);
    if (s) finals.set(a.slot, s);
  }
  // The final round's own account of each change: only slots that gave a final position have one (`round`).
  const reported = new Map(
    (session.verdict?.positionChanges ?? []).filter((c) => c.round !== undefined).map((c) => [c.slot, c] as const),
  );
  const verdict = verdictPosition(session, vote, finalAnswers);
  const ranks = session.rankings?.find((r) => r.round === 1)?.aggregate;

  const slots: SlotIntegrity[] = [...who.keys()]
    .sort((a, b) => a - b)
    .map((slot) => {
      const answer = who.get(slot)!;
      const f = firsts.get(slot);
      const g = finals.get(slot);
      const change = reported.get(slot);
      const towards = g
        ? [...firsts.entries()]
            .filter(([other, s]) => other !== slot && s.key === g.key)
            .map(([other]) => other)
            // In slot order, however the answers were stored.
            .sort((a, b) => a - b)
        : [];
      let direction: PositionDirection;
      let changed: boolean;
      if (!f || !g) {
        direction = 'unknown';
        changed = change?.changed ?? false;
      } else if (f.key === g.key) {
        direction = 'unchanged';
        changed = false;
      } else {
        changed = true;
        direction =
          voteKey !== undefined && g.key === voteKey
            ? 'towards_majority'
            : voteKey !== undefined && f.key === voteKey
              ? 'away_from_majority'
              : towards.length > 0
                ? 'to_other'
                : 'new_position';
      }
      const rank = ranks?.find((e) => e.slot === slot)?.rank;
      return {
        slot,
        provider: answer.provider,
        model: answer.model,
        family: modelFamily(answer.model),
        ...(f && { first: f.position }),
        ...(g && { final: g.position }),
        changed,
        ...(change && { reportedChanged: change.changed }),
        direction,
        ...(changed && towards.length > 0 && { towards }),
        reason: changed ? reasonKind(change?.reason) : 'held',
        ...(changed && change?.reason && { reasonText: change.reason }),
        ...(rank !== undefined && { peerRank: rank }),
        ...(f && verdict.position !== undefined && { survived: f.key === positionKey(verdict.position) }),
      };
    });

  return {
    vote: publicVote,
    verdict,
    summary: summaryLine(publicVote, verdict),
    slots,
    flags: flagsOf(slots, vote, firsts, finals, who),
    ...(session.adaptive && { adaptive: session.adaptive }),
  };
}

/** The verdict's position: the vote's (an adaptive stop), its own `POSITION:` line, else the final round's plurality. */
function verdictPosition(session: Session, vote: IntegrityVote, finalAnswers: readonly Answer[]): VerdictPosition {
  const v = session.verdict;
  const agrees = (position: string) =>
    vote.position === undefined ? {} : { agreesWithVote: positionKey(position) === positionKey(vote.position) };
  if (v?.synthesizer.reason === 'vote' && vote.position !== undefined)
    return { position: vote.position, source: 'vote', agreesWithVote: true };
  const own = v?.format === 'structured' && v.answer ? readPosition(v.answer) : undefined;
  if (own !== undefined) return { position: own, source: 'verdict', ...agrees(own) };
  const last = plurality(finalAnswers);
  if (last.position !== undefined) return { position: last.position, source: 'final_round', ...agrees(last.position) };
  return { source: 'none' };
}

/** Whether the verdict differs from the round-1 vote, in one line. */
function summaryLine(vote: IntegrityVote, verdict: VerdictPosition): string {
  const count = vote.slots ? `${vote.slots.length} of ${vote.answered}` : '';
  if (vote.position === undefined) {
    if (vote.stated === 0) return 'No round-1 answer stated a position, so there is no vote to compare the verdict with.';
    return `Round 1 has no majority (${vote.positions.map((p) => `${p.slots.length}× ${quoted(p.position)}`).join(', ')}), so there is no vote to compare the verdict with.`;
  }
  const said = `the round-1 vote (${quoted(vote.position)}, ${count})`;
  if (verdict.source === 'vote') return `The verdict is ${said}: the debate stopped after round 1.`;
  if (verdict.position === undefined) return `The verdict states no position to compare with ${said}.`;
  const reading = verdict.source === 'final_round' ? ' (read from the final round’s positions)' : '';
  return verdict.agreesWithVote
    ? `The verdict agrees with ${said}${reading}.`
    : `The verdict differs from ${said}: it says ${quoted(verdict.position)}${reading}.`;
}

function flagsOf(
  slots: readonly SlotIntegrity[],
  vote: IntegrityVote & { key?: string },
  firsts: ReadonlyMap<SlotNumber, Stated>,
  finals: ReadonlyMap<SlotNumber, Stated>,
  who: ReadonlyMap<SlotNumber, Answer>,
): IntegrityFlag[] {
  const flags: IntegrityFlag[] = [];
  for (const s of slots) {
    if (s.direction !== 'towards_majority' || s.reason === 'stated') continue;
    flags.push({
      kind: 'conformity',
      slots: [s.slot],
      message: `Slot ${s.slot} moved to the round-1 majority (${quoted(s.final!)}) ${s.reason === 'none' ? 'without a stated reason' : 'giving only the majority as its reason'}.`,
    });
  }
  const firstKeys = new Set([...firsts.values()].map((s) => s.key));
  const finalKeys = new Set([...finals.values()].map((s) => s.key));
  if (firstKeys.size >= 2 && finals.size >= 2 && finalKeys.size === 1) {
    const movers = slots.filter((s) => s.changed).map((s) => s.slot);
    flags.push({
      kind: 'collapse',
      slots: movers,
      message: `Round 1 disagreed (${firstKeys.size} positions); the final round is unanimous (${quoted([...finals.values()][0]!.position)}).`,
    });
  }
  for (const s of slots) {
    if (vote.key === undefined || s.direction !== 'unchanged' || firsts.get(s.slot)?.key === vote.key) continue;
    flags.push({
      kind: 'dissent_kept',
      slots: [s.slot],
      message: `Slot ${s.slot} kept its round-1 position (${quoted(s.first!)}) against the majority (${quoted(vote.position!)}).`,
    });
  }
  const byFamily = new Map<string, SlotNumber[]>();
  for (const [slot, a] of [...who.entries()].sort(([x], [y]) => x - y)) {
    const family = modelFamily(a.model);
    byFamily.set(family, [...(byFamily.get(family) ?? []), slot]);
  }
  for (const [family, members] of byFamily) {
    if (members.length < 2) continue;
    const models = new Set(members.map((slot) => underlyingModel(who.get(slot)!.model)));
    const same =
      models.size === 1
        ? `are the same model (${[...models][0]}) behind ${new Set(members.map((slot) => who.get(slot)!.provider)).size > 1 ? 'different endpoints' : 'one endpoint'}`
        : `are the same model family (${family})`;
    const together = members.filter((slot) => vote.slots?.includes(slot));
    flags.push({
      kind: 'same_family',
      slots: members,
      message: `${slotList(members).replace(/^s/, 'S')} ${same}: their agreement is weaker evidence${together.length >= 2 ? `, and ${slotList(together)} hold the round-1 majority together` : ''}.`,
    });
  }
  return flags;
}

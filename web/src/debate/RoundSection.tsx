import { useState } from 'preact/hooks';
import { formatUsage } from '../format.js';
import { AnswerCard } from './AnswerCard.js';
import { type RoundView, type SessionView, usageOfRound } from './model.js';

const KIND_LABEL = { independent: 'independent answers', critique: 'critique', final: 'final positions' } as const;

/** One round: its answers, folded unless it is the latest (or the reader unfolds it). */
export function RoundSection({ round, view, latest }: { round: RoundView; view: SessionView; latest: boolean }) {
  // Only the latest round is unfolded unless the reader says otherwise: a long session opens (and a replay runs)
  // rendering five answers, not all of them; a folded round's cards render only when it is opened.
  const [open, setOpen] = useState<boolean | undefined>(undefined);
  const shown = latest || (open ?? round.answers.size <= 1);
  return (
    <section class="card round" aria-labelledby={`round-${round.number}`}>
      <h2 id={`round-${round.number}`}>
        <button type="button" class="fold" aria-expanded={shown} onClick={() => setOpen(!shown)} disabled={latest}>
          <span aria-hidden="true">{shown ? '▾' : '▸'}</span> Round {round.number} · {KIND_LABEL[round.kind]}
        </button>
        <span class="muted small"> {formatUsage(usageOfRound(round))}</span>
        {/* A round the user's cancel cut short did not fail its quorum: it was stopped. */}
        {round.ended && round.quorumMet === false && view.status === 'cancelled' ? (
          <span class="muted small"> cancelled</span>
        ) : round.ended && round.quorumMet === false ? (
          <span class="error small"> quorum not met</span>
        ) : null}
      </h2>
      {shown && (
        <div class="answers">
          {[...round.answers.values()].map((a) => (
            <AnswerCard key={a.slot} answer={a} rev={a.rev} info={view.slots.find((s) => s.slot === a.slot)} />
          ))}
        </div>
      )}
    </section>
  );
}

import type { Session } from '../../../sdk/src/generated/types.gen.js';

/**
 * The session as it stands, safe to keep while the run goes on: a copy of every part a run changes
 * in place (the header, its arrays, each round and its lists), sharing what is never changed once
 * made (each answer, the consensus, the verdict). `structuredClone` did the same per write but
 * serialized every answer's text each time: a few percent of a busy server's CPU, and garbage.
 */
export function copyOf(session: Session): Session {
  const copy: Session = {
    ...session,
    rounds: session.rounds.map((round) => ({
      ...round,
      answers: [...round.answers],
      missingSlots: [...round.missingSlots],
    })),
    missingSlots: [...session.missingSlots],
    usage: { ...session.usage },
    cost: { ...session.cost },
  };
  if (session.earlyStop) copy.earlyStop = { ...session.earlyStop };
  return copy;
}

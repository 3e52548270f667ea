import { useEffect, useState } from 'preact/hooks';
import type { Ranking } from '../../sdk/src/index.js';
import { visibleControls } from '../../sdk/src/terminal/terminal.js';
import { consilium } from './api.js';
import { SlotName } from './components.js';
import type { Run } from './debate/runner.js';

/**
 * The peer ranking of a debate asked with `ranking: true`: the Borda aggregate and each model's ballot.
 * It reads the session again when the run hears an event its view does not keep (the `ranking` event)
 * and when the run ends, so it appears while the debate goes on. Reasons are model text: rendered as
 * text only.
 */
export function PanelRanking({ run }: { run: Run }) {
  const [rankings, setRankings] = useState<Ranking[]>([]);
  useEffect(() => {
    let seen = -1;
    let ended = false;
    let live = true;
    const look = () => {
      const { id, unknownEvents, status } = run.view;
      const done = status !== 'running';
      if (id === undefined || (unknownEvents === seen && done === ended)) return;
      seen = unknownEvents;
      ended = done;
      consilium.sessions.get(id).then(
        (s) => live && setRankings(s.rankings ?? []),
        () => undefined,
      );
    };
    look();
    const unsubscribe = run.subscribe(look);
    return () => {
      live = false;
      unsubscribe();
    };
  }, [run]);
  if (rankings.length === 0) return null;
  return (
    <>
      {rankings.map((r) => (
        <section key={r.round} class="card ranking" aria-labelledby={`ranking-${r.round}-h`}>
          <h2 id={`ranking-${r.round}-h`}>Peer ranking of round {r.round}</h2>
          <p class="muted small">Each model ranked the others' answers, anonymous and shuffled, never its own; a Borda count.</p>
          <table>
            <thead>
              <tr>
                <th scope="col">Rank</th>
                <th scope="col">Slot</th>
                <th scope="col">Points</th>
                <th scope="col">Ballots</th>
              </tr>
            </thead>
            <tbody>
              {r.aggregate.map((e) => (
                <tr key={e.slot} data-slot={e.slot}>
                  <td>
                    {e.rank}
                    {e.tied ? ' (tied)' : ''}
                  </td>
                  <td>
                    <SlotName slot={e.slot} />
                  </td>
                  <td>{e.points}</td>
                  <td>{e.ballots}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {r.note && <p class="muted small">{visibleControls(r.note)}</p>}
          <ul class="ballots">
            {r.ballots.map((b) => (
              <li key={b.slot}>
                <SlotName slot={b.slot} /> ranked:{' '}
                {b.order.map((o, i) => (
                  <span key={o.slot} title={visibleControls(o.reason)}>
                    {i > 0 && ' > '}
                    slot {o.slot}
                  </span>
                ))}
              </li>
            ))}
            {r.missing.map((m) => (
              <li key={`missing-${m.slot}`} class="muted">
                <SlotName slot={m.slot} /> gave no ranking: {visibleControls(m.reason)}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </>
  );
}

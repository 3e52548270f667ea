import { memo } from 'preact/compat';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';
import { SlotName } from '../components.js';
import { slotLook } from '../slots.js';
import type { SessionView } from './model.js';
import { StatusChip } from './StatusChip.js';
import { sameShape } from './shape.js';

/** Rounds as a timeline: one row per model, a cell per round, and where each model changed its position and why. */
export const Timeline = memo(function Timeline({ view }: { view: SessionView; shape: number }) {
  const changes = new Map((view.verdict?.positionChanges ?? []).map((p) => [p.slot, p]));
  return (
    <section class="card" aria-labelledby="timeline-h">
      <h2 id="timeline-h">Timeline</h2>
      <div class="scroll-x">
        <table class="timeline">
          <thead>
            <tr>
              <th scope="col">Model</th>
              {view.rounds.map((r) => (
                <th scope="col" key={r.number}>
                  R{r.number} <span class="muted small">{r.kind}</span>
                </th>
              ))}
              <th scope="col">Position</th>
            </tr>
          </thead>
          <tbody>
            {view.slots.map((s) => {
              const change = changes.get(s.slot);
              return (
                <tr key={s.slot} class={slotLook(s.slot).className}>
                  <th scope="row">
                    <SlotName slot={s.slot} info={s} />
                  </th>
                  {view.rounds.map((r) => {
                    const a = r.answers.get(s.slot);
                    const moved = change?.changed && change.round === r.number;
                    return (
                      <td key={r.number} class={moved ? 'moved' : ''}>
                        {a ? <StatusChip status={a.status} /> : <span class="muted">—</span>}
                        {moved && (
                          <span class="moved-mark" title={visibleControls(change.reason)}>
                            {' '}
                            <span aria-hidden="true">↺</span> changed
                          </span>
                        )}
                      </td>
                    );
                  })}
                  <td class="reason">
                    {change ? (
                      <>
                        <strong>{change.changed ? `Changed${change.round ? ` in R${change.round}` : ''}` : 'Held'}</strong>:{' '}
                        {visibleControls(change.reason)}
                      </>
                    ) : (
                      <span class="muted">{view.verdict ? 'not reported' : 'after the verdict'}</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}, sameShape);

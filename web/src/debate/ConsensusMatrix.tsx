import { memo } from 'preact/compat';
import { SlotChip } from '../components.js';
import { slotLook } from '../slots.js';
import { Markdown } from './Markdown.js';
import type { SessionView } from './model.js';
import { sameShape } from './shape.js';

/** Statements × models: who holds each agreement, and each side of each disagreement. */
export const ConsensusMatrix = memo(function ConsensusMatrix({ view }: { view: SessionView; shape: number }) {
  const consensus = view.consensus!;
  const slots = view.slots.map((s) => s.slot);
  const info = (slot: number) => view.slots.find((s) => s.slot === slot);
  const cells = (holders: number[], mark: string) =>
    slots.map((slot) => (
      <td key={slot} class={holders.includes(slot) ? `${slotLook(slot).className} held` : 'not-held'}>
        {holders.includes(slot) ? (
          <>
            <span aria-hidden="true">{mark}</span>
            <span class="sr-only">holds</span>
          </>
        ) : (
          <span class="sr-only">does not hold</span>
        )}
      </td>
    ));
  return (
    <section class="card" aria-labelledby="consensus-h">
      <h2 id="consensus-h">Consensus after round {consensus.round}</h2>
      <div class="scroll-x">
        <table class="matrix" data-testid="consensus-matrix">
          <thead>
            <tr>
              <th scope="col">Statement</th>
              {slots.map((slot) => (
                <th scope="col" key={slot}>
                  <SlotChip slot={slot} info={info(slot)} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {consensus.agreements.length > 0 && (
              <tr class="group">
                <th scope="rowgroup" colSpan={slots.length + 1}>
                  Agreements
                </th>
              </tr>
            )}
            {consensus.agreements.map((a, i) => (
              <tr key={`a${i}`} class="agreement">
                <th scope="row">
                  <Markdown text={a.statement} class="inline" />
                </th>
                {cells(a.slots, '✓')}
              </tr>
            ))}
            {consensus.disagreements.map((d, i) => [
              <tr key={`d${i}`} class="group">
                <th scope="rowgroup" colSpan={slots.length + 1}>
                  Disagreement: <Markdown text={d.topic} class="inline" />
                </th>
              </tr>,
              ...d.positions.map((p, j) => (
                <tr key={`d${i}p${j}`} class="position">
                  <th scope="row">
                    <span class="side">{String.fromCharCode(65 + j)}</span> <Markdown text={p.position} class="inline" />
                  </th>
                  {cells(p.slots, String.fromCharCode(65 + j))}
                </tr>
              )),
            ])}
          </tbody>
        </table>
      </div>
      {consensus.agreements.length === 0 && consensus.disagreements.length === 0 && <p class="muted">No statements reported.</p>}
    </section>
  );
}, sameShape);

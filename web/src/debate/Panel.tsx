import { memo } from 'preact/compat';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';
import { OfflineMark, SlotName } from '../components.js';
import { slotLook } from '../slots.js';
import { type SessionView, slotFailure } from './model.js';
import { sameShape } from './shape.js';

/**
 * The panel: each slot's colour, shape, provider, model, strength and whether it is a real model — and, when its
 * latest call failed, that it is failing and why (not "live").
 */
export const Panel = memo(function Panel({ view }: { view: SessionView; shape: number }) {
  return (
    <section class="card" aria-label="The panel">
      <ul class="panel">
        {view.slots.map((s) => {
          const failure = slotFailure(view, s.slot);
          return (
            <li key={s.slot} class={`${slotLook(s.slot).className} panel-slot ${s.status === 'offline' ? 'is-offline' : ''}`}>
              <SlotName slot={s.slot} info={s} />
              <span class="muted small">{s.model}</span>
              <span class="small">{s.strength}</span>
              {s.status === 'offline' ? (
                <OfflineMark />
              ) : failure ? (
                <span class="failing small" title={visibleControls(failure.message)}>
                  <span aria-hidden="true">✕</span> failing: {failure.code} — {visibleControls(failure.message)}
                </span>
              ) : (
                <span class="live-mark small">● live</span>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}, sameShape);

import { memo } from 'preact/compat';
import type { SlotInfo } from '../../../sdk/src/index.js';
import { OfflineMark, SlotName } from '../components.js';
import { slotLook } from '../slots.js';

/** The panel: each slot's colour, shape, provider, model, strength and whether it is a real model. */
export const Panel = memo(function Panel({ slots }: { slots: SlotInfo[] }) {
  return (
    <section class="card" aria-label="The panel">
      <ul class="panel">
        {slots.map((s) => (
          <li key={s.slot} class={`${slotLook(s.slot).className} panel-slot ${s.status === 'offline' ? 'is-offline' : ''}`}>
            <SlotName slot={s.slot} info={s} />
            <span class="muted small">{s.model}</span>
            <span class="small">{s.strength}</span>
            {s.status === 'offline' ? <OfflineMark /> : <span class="live-mark small">● live</span>}
          </li>
        ))}
      </ul>
    </section>
  );
});

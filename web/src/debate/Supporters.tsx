import type { SlotInfo } from '../../../sdk/src/index.js';
import { SlotChip } from '../components.js';

/** The slots (and rounds) that back an action or a dissent. */
export function Supporters({
  slots,
  rounds,
  slotInfo,
}: {
  slots: number[];
  rounds?: number[];
  slotInfo: (s: number) => SlotInfo | undefined;
}) {
  return (
    <span class="supporters">
      {slots.map((s) => (
        <SlotChip key={s} slot={s} info={slotInfo(s)} />
      ))}
      {rounds && rounds.length > 0 && <span class="muted small"> rounds {rounds.join(', ')}</span>}
    </span>
  );
}

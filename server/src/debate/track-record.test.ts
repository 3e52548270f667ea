import { describe, expect, it } from 'vitest';
import type { IntegrityReport, SlotIntegrity } from '../../../sdk/src/generated/types.gen.js';
import { trackRecord } from './track-record.js';

const entry = (slot: number, extra: Partial<SlotIntegrity>): SlotIntegrity => ({
  slot: slot as SlotIntegrity['slot'],
  provider: `p${slot}`,
  model: `m${slot}`,
  family: 'x',
  changed: false,
  direction: 'unchanged',
  reason: 'held',
  ...extra,
});
const report = (slots: SlotIntegrity[]): IntegrityReport => ({
  vote: { answered: slots.length, stated: slots.length, tie: false, share: 1, positions: [] },
  verdict: { source: 'verdict' },
  summary: 's',
  slots,
  flags: [],
});

describe('trackRecord', () => {
  it('adds up survival, peer rank, changes, their direction and towards whom, per slot and model', () => {
    const record = trackRecord([
      report([
        entry(1, { survived: true, peerRank: 1 }),
        entry(2, { changed: true, direction: 'towards_majority', towards: [1], reason: 'none', survived: false, peerRank: 2 }),
      ]),
      report([
        entry(1, { survived: false, peerRank: 2 }),
        entry(2, { changed: true, direction: 'to_other', towards: [1, 3], reason: 'stated' }),
      ]),
      report([entry(1, { direction: 'unknown' }), entry(2, { model: 'm9' })]),
    ]);
    expect(record.sessions).toBe(3);
    expect(record.slots.map((s) => `${s.slot}/${s.model}`)).toEqual(['1/m1', '2/m2', '2/m9']);
    expect(record.slots[0]).toMatchObject({
      sessions: 3,
      survived: 1,
      survivalRead: 2,
      meanPeerRank: 1.5,
      rankedSessions: 2,
      changed: 0,
      changeRead: 2,
    });
    expect(record.slots[1]).toMatchObject({
      sessions: 2,
      changed: 2,
      changeRead: 2,
      directions: { towards_majority: 1, away_from_majority: 0, to_other: 1, new_position: 0 },
      towards: [
        { slot: 1, count: 2 },
        { slot: 3, count: 1 },
      ],
      meanPeerRank: 2,
    });
    expect(record.slots[2]).toMatchObject({ sessions: 1, changed: 0 });
    expect(record.slots[2]!.meanPeerRank).toBeUndefined();
    expect(trackRecord([])).toEqual({ sessions: 0, slots: [] });
  });

  it('orders records by slot, provider and model, and towards-counts most first, then by slot', () => {
    const record = trackRecord([
      report([
        entry(3, { changed: true, direction: 'to_other', towards: [5, 2], reason: 'stated' }),
        entry(2, { provider: 'pb', model: 'mb' }),
        entry(2, { provider: 'pb', model: 'ma' }),
        entry(2, { provider: 'pa', model: 'mz' }),
        entry(1, {}),
      ]),
      report([entry(3, { changed: true, direction: 'new_position', reason: 'stated' })]),
    ]);
    expect(record.slots.map((s) => `${s.slot}/${s.provider}/${s.model}`)).toEqual([
      '1/p1/m1',
      '2/pa/mz',
      '2/pb/ma',
      '2/pb/mb',
      '3/p3/m3',
    ]);
    // A move to a new position names nobody.
    expect(record.slots[4]).toMatchObject({
      changed: 2,
      directions: { towards_majority: 0, away_from_majority: 0, to_other: 1, new_position: 1 },
      towards: [
        { slot: 2, count: 1 },
        { slot: 5, count: 1 },
      ],
    });
  });
});

/**
 * A slot's track record over many deep debates, added up from their integrity reports: how often its round-1
 * position survived into the verdict, its mean peer rank, and how often it changed its position, in which
 * direction and to whose round-1 position. One record per slot and model: a slot given another model is
 * another record.
 */
import type { IntegrityReport, SlotTrackRecord, TrackRecord } from '../../../sdk/src/generated/types.gen.js';

type SlotNumber = SlotTrackRecord['slot'];

export function trackRecord(reports: readonly IntegrityReport[]): TrackRecord {
  const records = new Map<string, SlotTrackRecord & { rankSum: number; towardsCounts: Map<SlotNumber, number> }>();
  for (const report of reports) {
    for (const s of report.slots) {
      const key = `${s.slot}/${s.provider}/${s.model}`;
      let r = records.get(key);
      if (!r) {
        r = {
          slot: s.slot,
          provider: s.provider,
          model: s.model,
          family: s.family,
          sessions: 0,
          survived: 0,
          survivalRead: 0,
          rankedSessions: 0,
          changed: 0,
          changeRead: 0,
          directions: { towards_majority: 0, away_from_majority: 0, to_other: 0, new_position: 0 },
          towards: [],
          rankSum: 0,
          towardsCounts: new Map(),
        };
        records.set(key, r);
      }
      r.sessions++;
      if (s.survived !== undefined) {
        r.survivalRead++;
        if (s.survived) r.survived++;
      }
      if (s.peerRank !== undefined) {
        r.rankedSessions++;
        r.rankSum += s.peerRank;
      }
      if (s.direction === 'unknown') continue;
      r.changeRead++;
      if (!s.changed || s.direction === 'unchanged') continue;
      r.changed++;
      r.directions[s.direction]++;
      for (const other of s.towards ?? []) r.towardsCounts.set(other, (r.towardsCounts.get(other) ?? 0) + 1);
    }
  }
  const slots = [...records.values()]
    .sort((a, b) => a.slot - b.slot || a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model))
    .map(({ rankSum, towardsCounts, ...r }) => ({
      ...r,
      ...(r.rankedSessions > 0 && { meanPeerRank: Math.round((rankSum / r.rankedSessions) * 100) / 100 }),
      towards: [...towardsCounts.entries()].sort(([a, x], [b, y]) => y - x || a - b).map(([slot, count]) => ({ slot, count })),
    }));
  return { sessions: reports.length, slots };
}

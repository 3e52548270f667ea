import { useEffect, useState } from 'preact/hooks';
import type { ConsiliumError, TrackRecord as Record, SlotTrackRecord } from '../../sdk/src/index.js';
import { consilium } from './api.js';
import { ErrorNote } from './components.js';

const share = (n: number, of: number) => (of === 0 ? '—' : `${Math.round((n / of) * 100)} % (${n} of ${of})`);

function towards(r: SlotTrackRecord): string {
  const d = r.directions;
  const parts = [
    d.towards_majority > 0 && `${d.towards_majority}× to the majority`,
    d.away_from_majority > 0 && `${d.away_from_majority}× away from it`,
    d.to_other > 0 && `${d.to_other}× to another slot`,
    d.new_position > 0 && `${d.new_position}× to a new position`,
  ].filter(Boolean);
  const whom = r.towards.map((t) => `slot ${t.slot} ${t.count}×`).join(', ');
  return [parts.join(', '), whom && `(to ${whom})`].filter(Boolean).join(' ') || '—';
}

/**
 * Each slot's track record over the user's deep debates (`GET /providers/track-record`): how often its round-1
 * position survived into the verdict, its mean peer rank, how often it changed its position and towards whom.
 */
export function TrackRecord() {
  const [record, setRecord] = useState<Record>();
  const [failure, setFailure] = useState<ConsiliumError>();
  useEffect(() => {
    consilium.trackRecord().then(setRecord, setFailure);
  }, []);
  return (
    <section class="card" aria-labelledby="track-h" data-testid="track-record">
      <h2 id="track-h">Track record</h2>
      <ErrorNote error={failure} />
      {!record && !failure && <p class="muted">Loading…</p>}
      {record && record.sessions === 0 && <p class="muted">No deep debate yet: each one adds to every slot's record.</p>}
      {record && record.sessions > 0 && (
        <>
          <p class="small">Over your {record.sessions} deep debates with an integrity report.</p>
          <div class="scroll-x">
            <table class="track-record">
              <thead>
                <tr>
                  <th scope="col">Slot</th>
                  <th scope="col">Model</th>
                  <th scope="col">Round-1 position survived</th>
                  <th scope="col">Mean peer rank</th>
                  <th scope="col">Changed its position</th>
                  <th scope="col">Towards</th>
                </tr>
              </thead>
              <tbody>
                {record.slots.map((r) => (
                  <tr key={`${r.slot}/${r.provider}/${r.model}`} data-slot={r.slot}>
                    <th scope="row">
                      {r.slot} {r.provider}
                    </th>
                    <td>
                      {r.model} <span class="muted small">({r.family})</span>
                    </td>
                    <td>{share(r.survived, r.survivalRead)}</td>
                    <td>{r.meanPeerRank === undefined ? '—' : `${r.meanPeerRank} (${r.rankedSessions} rankings)`}</td>
                    <td>{share(r.changed, r.changeRead)}</td>
                    <td>{towards(r)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

import { FLAG_LABELS, type IntegrityReport, MOVE_LABELS, type SlotInfo, type SlotIntegrity } from '../../../sdk/src/index.js';
import { SlotName } from '../components.js';

const REASONS: Record<SlotIntegrity['reason'], string> = {
  stated: 'its own reason',
  majority: 'only the majority',
  none: 'no reason given',
  held: '—',
};

const SOURCES: Record<IntegrityReport['verdict']['source'], string> = {
  verdict: 'its POSITION line',
  vote: 'the vote itself',
  final_round: 'read from the final round',
  none: 'not stated',
};

/**
 * Whether the debate helped, beside the verdict: the round-1 vote (a plain plurality of the independent answers)
 * and the verdict's position in one line, the flags a reader can act on, and each slot from round 1 to its final
 * position. Every position and reason is model text, shown as text.
 */
export function IntegritySection({
  report,
  slotInfo,
}: {
  report: IntegrityReport;
  slotInfo: (s: number) => SlotInfo | undefined;
}) {
  const { vote, verdict, adaptive } = report;
  return (
    <section class="card integrity" aria-labelledby="integrity-h" data-testid="integrity">
      <h2 id="integrity-h">Integrity</h2>
      <p class="integrity-summary" data-testid="integrity-summary">
        {report.summary}
      </p>
      <dl class="vote-beside">
        <div data-testid="integrity-vote">
          <dt>Round-1 vote</dt>
          <dd>
            {vote.position ?? (vote.tie ? 'a tie' : 'no position stated')}{' '}
            <span class="muted small">
              {vote.slots ? `${vote.slots.length} of ${vote.answered}` : `${vote.stated} of ${vote.answered} stated one`}
            </span>
          </dd>
        </div>
        <div data-testid="integrity-verdict">
          <dt>Verdict</dt>
          <dd>
            {verdict.position ?? 'no position stated'} <span class="muted small">{SOURCES[verdict.source]}</span>
          </dd>
        </div>
      </dl>
      {adaptive && (
        <p class="small" data-testid="integrity-adaptive">
          Adaptive: {adaptive.agreement === undefined ? 'undecided' : `${Math.round(adaptive.agreement * 100)} %`} of the round-1
          answers agreed ({Math.round(adaptive.threshold * 100)} % needed) —{' '}
          {adaptive.stopped ? 'the debate stopped after round 1' : 'the debate went on'}
          {adaptive.saved &&
            `; that saved about ${adaptive.saved.calls} calls, ${adaptive.saved.tokens} tokens and $${adaptive.saved.usd.toFixed(4)}${adaptive.saved.priced ? '' : ' (a lower bound)'}`}
          .
        </p>
      )}
      {report.flags.length > 0 && (
        <ul class="integrity-flags">
          {report.flags.map((f, i) => (
            <li key={i} class={`flag flag-${f.kind}`} data-kind={f.kind}>
              <strong>{FLAG_LABELS[f.kind]}</strong> {f.message}
            </li>
          ))}
        </ul>
      )}
      {report.slots.length > 0 && (
        <div class="scroll-x">
          <table class="integrity-slots">
            <thead>
              <tr>
                <th scope="col">Slot</th>
                <th scope="col">Family</th>
                <th scope="col">Round 1</th>
                <th scope="col">Final</th>
                <th scope="col">Move</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {report.slots.map((s) => (
                <tr key={s.slot} data-slot={s.slot} data-direction={s.direction}>
                  <th scope="row">
                    <SlotName slot={s.slot} info={slotInfo(s.slot)} />
                  </th>
                  <td>{s.family}</td>
                  <td>{s.first ?? '—'}</td>
                  <td>{s.final ?? '—'}</td>
                  <td>
                    {MOVE_LABELS[s.direction]}
                    {s.towards && s.towards.length > 0 && <span class="muted small"> (slot {s.towards.join(', ')})</span>}
                  </td>
                  <td title={s.reasonText}>{s.reason === 'stated' && s.reasonText ? s.reasonText : REASONS[s.reason]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

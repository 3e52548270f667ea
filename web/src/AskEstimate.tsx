import { useEffect, useState } from 'preact/hooks';
import type { ConsiliumError, Estimate, EstimateOptions, EstimateRange } from '../../sdk/src/index.js';
import { consilium } from './api.js';

/** How long the form must stay unchanged before it is estimated again. */
const SETTLE_MS = 350;

const dollars = (r: EstimateRange) => `$${r.low.toFixed(4)}–$${r.high.toFixed(4)}`;
const tokens = (r: EstimateRange) => `${Math.round(r.low).toLocaleString()}–${Math.round(r.high).toLocaleString()}`;
const sum = (a: EstimateRange, b: EstimateRange): EstimateRange => ({
  low: a.low + b.low,
  expected: a.expected + b.expected,
  high: a.high + b.high,
});
const calls = (r: EstimateRange) => (r.low === r.high ? `${r.low}` : `${r.low}–${r.high}`);

/**
 * What the run the form describes would cost (`POST /consilium/estimate`: nothing is asked of any model), and, with a
 * budget, whether it fits, before it starts. Asked again once the form has settled after a change.
 */
export function AskEstimate({ question, request }: { question: string; request: EstimateOptions }) {
  const [estimate, setEstimate] = useState<Estimate>();
  const [failure, setFailure] = useState<ConsiliumError>();
  const key = JSON.stringify([question.trim(), request]);
  useEffect(() => {
    if (question.trim() === '') {
      setEstimate(undefined);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      consilium.debates.estimate(question, { ...request, signal: controller.signal }).then(
        (e) => {
          setEstimate(e);
          setFailure(undefined);
        },
        (err: ConsiliumError) => {
          if (err.code !== 'aborted') setFailure(err);
        },
      );
    }, SETTLE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // `key` holds every input: the request object itself is new on each render.
  }, [key]);
  if (failure) return <p class="muted small">No estimate: {failure.problem?.detail ?? failure.message}</p>;
  if (!estimate) return null;
  const t = estimate.total;
  const over = estimate.budget && estimate.budget.verdict !== 'within';
  return (
    <div class="estimate" data-testid="estimate" aria-live="polite">
      <p class="small">
        <strong>Estimate:</strong> {calls(t.calls)} calls · {tokens(sum(t.inputTokens, t.outputTokens))} tokens ·{' '}
        {dollars(t.costUsd)}
        {t.priced ? '' : ' (some models have no price)'}
      </p>
      {over && (
        <p class="error" data-testid="estimate-budget" role="status">
          {estimate.budget!.message}
        </p>
      )}
      <details>
        <summary class="small">Per slot</summary>
        <div class="scroll-x">
          <table class="estimate-slots">
            <thead>
              <tr>
                <th scope="col">Slot</th>
                <th scope="col">Calls</th>
                <th scope="col">Input tokens</th>
                <th scope="col">Output tokens</th>
                <th scope="col">Cost</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {estimate.slots.map((s) => (
                <tr key={s.slot}>
                  <th scope="row">
                    {s.slot} {s.provider} <span class="muted">{s.model}</span>
                  </th>
                  <td>{calls(s.calls)}</td>
                  <td>{tokens(s.inputTokens)}</td>
                  <td>{tokens(s.outputTokens)}</td>
                  <td>{s.priced ? dollars(s.costUsd) : 'no price'}</td>
                  <td>{s.pastAnswers > 0 ? `${s.pastAnswers} past answers` : 'defaults'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p class="muted small">{estimate.note}</p>
      </details>
    </div>
  );
}

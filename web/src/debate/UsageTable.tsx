import { memo } from 'preact/compat';
import type { Usage } from '../../../sdk/src/index.js';
import { SlotName } from '../components.js';
import { formatCost, formatUsage } from '../format.js';
import { costOfRound, costOfSlot, type SessionView, sumCosts, usageBySlot, usageOfRound, verdictSpend } from './model.js';
import { Spend } from './Spend.js';
import { sameShape } from './shape.js';

/** Tokens and cost per model and round, the verdict's calls, and the totals. */
export const UsageTable = memo(function UsageTable({ view }: { view: SessionView; shape: number }) {
  const bySlot = usageBySlot(view);
  const verdict = verdictSpend(view);
  const synth = view.verdict?.synthesizer.slot ?? view.synthesizer?.slot;
  const addUsage = (a: Usage | undefined, b: Usage | undefined) =>
    a && b ? { inputTokens: 0, outputTokens: 0, totalTokens: a.totalTokens + b.totalTokens } : (a ?? b);
  return (
    <section class="card" aria-labelledby="usage-h">
      <h2 id="usage-h">Usage and cost</h2>
      <div class="scroll-x">
        <table class="usage" data-testid="usage-table">
          <thead>
            <tr>
              <th scope="col">Model</th>
              {view.rounds.map((r) => (
                <th scope="col" key={r.number}>
                  R{r.number}
                </th>
              ))}
              {verdict && <th scope="col">Verdict</th>}
              <th scope="col">Total</th>
            </tr>
          </thead>
          <tbody>
            {view.slots.map((s) => {
              const writes = verdict && s.slot === synth;
              return (
                <tr key={s.slot} data-slot={s.slot}>
                  <th scope="row">
                    <SlotName slot={s.slot} info={s} />
                  </th>
                  {view.rounds.map((r) => {
                    const a = r.answers.get(s.slot)?.answer;
                    return <td key={r.number}>{a ? <Spend usage={a.usage} cost={a.cost} /> : '—'}</td>;
                  })}
                  {verdict && <td>{writes ? <Spend usage={verdict.usage} cost={verdict.cost} /> : '—'}</td>}
                  <td>
                    <Spend
                      usage={writes ? addUsage(bySlot.get(s.slot), verdict.usage) : bySlot.get(s.slot)}
                      cost={writes ? sumCosts([costOfSlot(view, s.slot), verdict.cost]) : costOfSlot(view, s.slot)}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">All models</th>
              {view.rounds.map((r) => (
                <td key={r.number} data-round={r.number}>
                  <Spend usage={usageOfRound(r)} cost={costOfRound(r)} />
                </td>
              ))}
              {verdict && (
                <td>
                  <Spend usage={verdict.usage} cost={verdict.cost} />
                </td>
              )}
              <td>
                <Spend
                  usage={
                    view.usage ?? {
                      inputTokens: 0,
                      outputTokens: 0,
                      totalTokens: [...bySlot.values()].reduce((n, u) => n + u.totalTokens, 0),
                    }
                  }
                  cost={view.cost}
                />
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
      <p>
        Total: {formatUsage(view.usage)} · <strong data-testid="total-cost">{formatCost(view.cost)}</strong>
      </p>
      <p class="muted small">
        Tokens, then cost, per model and round, from the server's price table; "≥" means some usage had no price (a live model
        missing from the table), so the figure is a lower bound; the offline stand-in costs nothing; "—" means not reported.
      </p>
    </section>
  );
}, sameShape);

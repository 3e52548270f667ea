import type { Cost, Usage } from '../../../sdk/src/index.js';
import { formatCost, formatTokens } from '../format.js';

/** Tokens and cost in one cell: cost from the server's price table, "≥" when some of it had no price. */
export function Spend({ usage, cost }: { usage?: Usage; cost?: Cost }) {
  return (
    <>
      {formatTokens(usage?.totalTokens ?? 0)}
      <br />
      <span class="muted small cost">{formatCost(cost)}</span>
    </>
  );
}

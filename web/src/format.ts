import type { Cost, Usage } from '../../sdk/src/index.js';

export const formatTokens = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));
export const formatUsage = (u?: Usage) => (u ? `${formatTokens(u.inputTokens)} in · ${formatTokens(u.outputTokens)} out` : '—');
const usd = (n: number) => `$${n.toFixed(n < 0.01 ? 4 : 2)}`;
/**
 * A cost as a reader should take it: a priced figure as it is; an unpriced one is "unknown", with the part that had a
 * price as a lower bound when there is one ("≥ $0.0000" read as free).
 */
export const formatCost = (c?: Cost) => (!c ? '—' : c.priced ? usd(c.usd) : c.usd > 0 ? `unknown (≥ ${usd(c.usd)})` : 'unknown');
// One formatter for every date: `toLocaleString` builds a new one per call, which shows in a profile.
const dates = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });
export const formatDate = (iso?: string) => (iso ? dates.format(new Date(iso)) : '');

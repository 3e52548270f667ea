import type { Cost, Usage } from '../../sdk/src/index.js';

export const formatTokens = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));
export const formatUsage = (u?: Usage) => (u ? `${formatTokens(u.inputTokens)} in · ${formatTokens(u.outputTokens)} out` : '—');
export const formatCost = (c?: Cost) => (c ? `${c.priced ? '' : '≥ '}$${c.usd.toFixed(c.usd < 0.01 ? 4 : 2)}` : '—');
// One formatter for every date: `toLocaleString` builds a new one per call, which shows in a profile.
const dates = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });
export const formatDate = (iso?: string) => (iso ? dates.format(new Date(iso)) : '');

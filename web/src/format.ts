import type { Cost, Usage } from '../../sdk/src/index.js';

export const formatTokens = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));
export const formatUsage = (u?: Usage) => (u ? `${formatTokens(u.inputTokens)} in · ${formatTokens(u.outputTokens)} out` : '—');
export const formatCost = (c?: Cost) => (c ? `${c.priced ? '' : '≥ '}$${c.usd.toFixed(c.usd < 0.01 ? 4 : 2)}` : '—');
export const formatDate = (iso?: string) => (iso ? new Date(iso).toLocaleString() : '');

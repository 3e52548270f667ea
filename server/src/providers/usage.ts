/** Usage added up: over a call's attempts (each one billed) and over a debate's calls. */
import type { Usage } from '../../../sdk/src/generated/types.gen.js';

export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  // The parts (of input, of output) only where some call reported them.
  for (const key of ['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const) {
    const n = (a[key] ?? 0) + (b[key] ?? 0);
    if (n > 0) sum[key] = n;
  }
  return sum;
}

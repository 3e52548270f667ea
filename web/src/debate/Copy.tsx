import { useState } from 'preact/hooks';
import type { Action, Verdict } from '../../../sdk/src/index.js';

/**
 * Copies text to the clipboard; says so (or why not) in its own live region. `text` may be a promise (the session's
 * Markdown, fetched on click).
 */
export function CopyButton({ text, label, what }: { text: () => string | Promise<string>; label?: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(await text());
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button type="button" class="copy" onClick={copy} aria-label={`Copy ${what}`} data-copy={what}>
      {label ?? 'Copy'}
      <span role="status" class="copy-state">
        {state === 'copied' ? ' ✓' : state === 'failed' ? ' (copy failed)' : ''}
      </span>
    </button>
  );
}

/** An action as one Markdown list item. */
export const actionText = (a: Action) => `**${a.title}** — ${a.rationale}`;

/** The verdict as Markdown: summary, answer, actions by priority. */
export function verdictText(v: Verdict): string {
  if (v.format === 'unstructured') return v.rawText ?? '';
  const out = [v.summary, v.answer].filter((t): t is string => !!t);
  for (const p of ['P0', 'P1', 'P2'] as const) {
    const actions = v.actions?.[p] ?? [];
    if (actions.length) out.push(`### ${p}\n\n${actions.map((a) => `- ${actionText(a)}`).join('\n')}`);
  }
  return out.join('\n\n');
}

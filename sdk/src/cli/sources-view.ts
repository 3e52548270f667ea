/**
 * A grounded debate's sources as terminal text, printed after the verdict: each page numbered as the
 * models saw it, with the link to the revision read, then the citations that did not hold. Wiki titles,
 * notes and model citations are untrusted: shown inert (no escape sequences).
 */
import type { Grounding } from '../generated/types.gen.js';
import { inert, oneLine, type Paint } from '../terminal/terminal.js';

export function renderSources(g: Grounding, paint: Paint): string {
  const out = [
    '',
    paint('bold', `Sources · ${inert(g.source)} · grounding ${g.status}`) +
      paint('dim', ` · ${g.verifiedCitations} verified, ${g.unverifiedCitations} unverified citations`),
  ];
  if (g.note) out.push(paint('yellow', oneLine(inert(g.note))));
  for (const p of g.pages) out.push(`  [${p.n}] ${oneLine(inert(p.title))}  ${paint('dim', inert(p.url))}`);
  const unverified = g.citations.filter((c) => !c.verified);
  if (unverified.length > 0) {
    out.push(paint('yellow', 'Unverified citations:'));
    for (const c of unverified) {
      const where = c.round === 0 ? 'verdict' : `round ${c.round}`;
      const why = c.reason === 'quote_not_found' ? 'quotation not in the page' : 'page not retrieved';
      out.push(`  slot ${c.slot}, ${where}: ${oneLine(inert(c.ref))} — ${why}`);
    }
  }
  return `${out.join('\n')}\n`;
}

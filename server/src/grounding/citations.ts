/**
 * Citations in a model's text, and whether each holds. Models are asked to cite a source by its number
 * (`[2]`) or its title (`[[Title]]`), with a quotation in double quotes right before it
 * (`"exact words" [2]`). A citation of a page this session did not retrieve, or whose quotation is not
 * in the text the models were given, is unverified and names no source.
 */
import type { Citation, GroundingPage } from '../../../sdk/src/generated/types.gen.js';

export interface FoundCitation {
  ref: string;
  quote?: string;
}

// A quotation (straight or curly quotes, 4–400 characters) followed by a reference, or a bare reference.
const QUOTED = /["“]([^"“”\n]{4,400})["”]\s{0,2}\[(\d{1,3}|\[[^\]\n]{1,255}\])\]/g;
const BARE = /\[(\d{1,3})\](?!\()|\[\[([^\]|\n]{1,255})(?:\|[^\]\n]*)?\]\]/g;

/** Every citation in `text`, in order of appearance; a reference inside a quoted citation counts once. */
export function findCitations(text: string): FoundCitation[] {
  const found: { at: number; c: FoundCitation }[] = [];
  const taken: [number, number][] = [];
  for (const m of text.matchAll(QUOTED)) {
    const raw = m[2]!;
    const ref = raw.startsWith('[') ? raw.slice(1, -1) : raw;
    // A quotation inside JSON text (a structured answer shown raw) ends in the backslash of its escaped quote mark.
    found.push({ at: m.index, c: { ref: ref.trim(), quote: m[1]!.replace(/\\$/, '').trim() } });
    taken.push([m.index, m.index + m[0].length]);
  }
  for (const m of text.matchAll(BARE)) {
    if (taken.some(([from, to]) => m.index >= from && m.index < to)) continue;
    found.push({ at: m.index, c: { ref: (m[1] ?? m[2]!).trim() } });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.c);
}

/** Case, whitespace and quote marks do not count when a quotation is looked for. */
export function normalizeForQuote(text: string): string {
  return text.replace(/[‘’]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** A title as MediaWiki normalizes it: underscores as spaces, the first letter upper-case. */
export function normalizeTitle(title: string): string {
  const t = title.replace(/_/g, ' ').replace(/\s+/g, ' ').trim();
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** A page as the run holds it: always with the text the models were given. */
export type ReadPage = GroundingPage & { text: string };

/** Checks one citation against the pages retrieved so far. */
export function checkCitation(
  found: FoundCitation,
  pages: readonly ReadPage[],
  where: { round: number; slot: Citation['slot'] },
): Citation {
  const page = /^\d+$/.test(found.ref)
    ? pages.find((p) => p.n === Number(found.ref))
    : pages.find((p) => normalizeTitle(p.title) === normalizeTitle(found.ref));
  const base: Citation = { ...where, ref: found.ref, verified: false, ...(found.quote !== undefined && { quote: found.quote }) };
  if (!page) return { ...base, reason: 'not_retrieved' };
  if (found.quote !== undefined && !normalizeForQuote(page.text).includes(normalizeForQuote(found.quote))) {
    return { ...base, reason: 'quote_not_found' };
  }
  return { ...base, verified: true, source: page.n };
}

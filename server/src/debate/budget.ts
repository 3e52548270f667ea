/**
 * Bounded prompts: every prompt that quotes answers stays within its model's context budget. The
 * quoted answers share what the rest of the prompt leaves: short ones are kept whole, and only
 * those longer than their share are shortened, head and tail kept around a marker that says how
 * much was cut (never silently). One model's 5 MB answer then costs every later prompt its share,
 * not 5 MB.
 */
import type { PromptCut } from '../../../sdk/src/generated/types.gen.js';

/** Context windows in tokens, per provider, when the slot sets none (`CONSILIUM_SLOT<N>_CONTEXT_TOKENS`). */
export const DEFAULT_CONTEXT_TOKENS: Readonly<Record<string, number>> = {
  anthropic: 200_000,
  openai: 128_000,
  deepseek: 64_000,
  google: 128_000,
  xai: 128_000,
};
/** OpenAI-compatible servers (a local model's window is often small). */
export const FALLBACK_CONTEXT_TOKENS = 32_000;
/** Left for the model's reply. */
export const OUTPUT_RESERVE_TOKENS = 8_000;
/**
 * Characters per token assumed when turning a window into characters: below English's ~4, so a
 * prompt in another language or code still fits.
 */
export const CHARS_PER_TOKEN = 3;
/** Never less than this, so a tiny setting still leaves room for the prompt itself. */
const MIN_PROMPT_CHARS = 4_000;

/** The most characters one prompt (system and user message) may have for a slot. */
export function promptChars(provider: string, contextTokens: number | undefined): number {
  const tokens = contextTokens ?? DEFAULT_CONTEXT_TOKENS[provider] ?? FALLBACK_CONTEXT_TOKENS;
  return Math.max(MIN_PROMPT_CHARS, (tokens - OUTPUT_RESERVE_TOKENS) * CHARS_PER_TOKEN);
}

export function cutMarker(cut: number): string {
  return `\n[… ${cut} characters cut here to keep this prompt within the model's context budget …]\n`;
}

/** `text` shortened to about `max` characters: head and tail around a marker; `kept` counts the text's own characters. */
export function shorten(text: string, max: number): { text: string; kept: number } {
  if (text.length <= max) return { text, kept: text.length };
  const room = Math.max(0, max - cutMarker(text.length).length);
  const head = Math.ceil(room * 0.6);
  const tail = room - head;
  const kept = head + tail;
  return { text: `${text.slice(0, head)}${cutMarker(text.length - kept)}${text.slice(text.length - tail)}`, kept };
}

/**
 * Each text's share of `available` characters: the shortest first take what they need, the rest
 * split what is left evenly. Returns the texts to quote, shortened where needed.
 */
export function fitTexts(texts: readonly string[], available: number): { text: string; kept: number }[] {
  const order = texts.map((t, i) => ({ i, length: t.length })).sort((a, b) => a.length - b.length);
  const out = texts.map((text) => ({ text, kept: text.length }));
  let left = Math.max(0, available);
  for (const [k, { i, length }] of order.entries()) {
    const share = Math.floor(left / (order.length - k));
    if (length <= share) {
      left -= length;
      continue;
    }
    out[i] = shorten(texts[i]!, share);
    left -= Math.min(share, out[i]!.text.length);
  }
  return out;
}

/** One quoted answer of a prompt: whose, from which round. */
export interface QuotedPart {
  slot: PromptCut['slot'];
  round?: number;
  text: string;
}

/**
 * A prompt built by `build` from `parts`' texts, within `maxChars` (with `overhead` characters
 * sent beside it, the system prompt). What the rest of the prompt takes is measured by building it
 * with every quote empty; the cuts made are returned for the session.
 */
export function boundedPrompt(
  parts: readonly QuotedPart[],
  build: (texts: readonly string[]) => string,
  options: { maxChars: number; overhead: number; round: number; reader: PromptCut['reader'] },
): { prompt: string; cuts: PromptCut[] } {
  const total = parts.reduce((sum, p) => sum + p.text.length, 0);
  const whole = () => build(parts.map((p) => p.text));
  // The usual case builds the prompt once.
  if (total + options.overhead + 4_000 <= options.maxChars) {
    const prompt = whole();
    if (prompt.length + options.overhead <= options.maxChars) return { prompt, cuts: [] };
  }
  const fixed = build(parts.map(() => '')).length + options.overhead;
  // Each cut adds a marker a little longer than an empty quote's; keep room for them.
  const fitted = fitTexts(
    parts.map((p) => p.text),
    options.maxChars - fixed - parts.length * 8,
  );
  const cuts: PromptCut[] = [];
  for (const [i, p] of parts.entries()) {
    const { kept } = fitted[i]!;
    if (kept === p.text.length) continue;
    cuts.push({
      round: options.round,
      reader: options.reader,
      slot: p.slot,
      ...(p.round !== undefined && { quotedRound: p.round as NonNullable<PromptCut['quotedRound']> }),
      chars: p.text.length,
      keptChars: kept,
    });
  }
  return { prompt: build(fitted.map((f) => f.text)), cuts };
}

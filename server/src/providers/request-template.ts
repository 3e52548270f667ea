/**
 * Provider requests built without their SDK, whose per-call work would be a tenth of the server's
 * JavaScript thread for requests that differ, per call shape, only in the prompt's texts. The SDK
 * builds each shape's request once with placeholders for the texts (`learnTemplate`), and each call
 * fills its texts in: URL, headers, warnings and body are byte for byte the SDK's. A shape whose
 * SDK does not copy a text as it is (a trim, a text dropped or repeated), or adds tools, gets no
 * template: its calls go through the SDK.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Prompt, SharedV3Warning } from '@ai-sdk/provider';
import { hasTools, type SdkRequestPlan, sdkFetch } from './sdk-fetch.js';
import { readyHeaders, type Transport } from './transport.js';

/** One call shape's request, with the prompt's texts left out. */
export interface RequestTemplate {
  url: string;
  /** The SDK's headers, lowercase names. */
  headers: Record<string, string>;
  /** What the SDK's `stream-start` said for this shape; logged on every call, as the SDK's stream would. */
  warnings: SharedV3Warning[];
  /** The JSON body with `texts` (the prompt's texts in order: system, then each message's) in place. */
  body(texts: readonly string[]): string;
}

/** The options of a call other than its prompt and signal (what decides the shape with the prompt's roles). */
export type ShapeOptions = Omit<LanguageModelV3CallOptions, 'prompt' | 'abortSignal'>;

/** The prompt's texts in order, the ones a template's body takes. */
export function promptTexts(prompt: LanguageModelV3Prompt): string[] {
  const texts: string[] = [];
  for (const message of prompt) {
    if (message.role === 'system') texts.push(message.content);
    else for (const part of message.content) if (part.type === 'text') texts.push(part.text);
  }
  return texts;
}

/**
 * Whether a template may carry these texts: an empty or blank text is one an SDK may drop or
 * treat apart (Google leaves empty parts out), so those calls go through the SDK.
 */
export function fillable(texts: readonly string[]): boolean {
  for (const text of texts) if (text.trim() === '') return false;
  return true;
}

/** A text as it stands inside a JSON string: `JSON.stringify` escapes character by character. */
const escaped = (text: string): string => {
  const json = JSON.stringify(text);
  return json.slice(1, -1);
};

/** Probes made so far: each gets its own nonce. */
let probes = 0;

/**
 * Each placeholder starts with a space, so it cannot match from inside an escape sequence; the
 * two variants differ in length and content, so a body that derives anything from a text (a
 * length, a slice, a hash) differs between them outside the placeholders.
 */
function placeholder(nonce: string, i: number, variant = 0): string {
  return variant === 0 ? ` \t\n"\\\u0000\u2028é😀<${nonce}:${i}>\r ` : ` <${nonce}:${i}>\u001f'\\x\n\n🚀\u00a0ü  `;
}

/** What a template is learned from: a provider's SDK model, made for each request (`ProviderLanguageModel`). */
export interface SdkModelSource {
  withFetch(fetch: typeof globalThis.fetch): Promise<LanguageModelV3>;
  readonly transport: Transport;
}

/**
 * Builds the request of one call shape with the SDK and makes a template of it; `undefined` when
 * the SDK does not copy every text as it is, or adds tools. It asks twice, with two kinds of
 * placeholders, and keeps the template only if both requests agree on everything else. The SDK's
 * own errors (an unsupported option, a failed import) reject.
 */
export async function learnTemplate(
  model: SdkModelSource,
  options: ShapeOptions,
  prompt: LanguageModelV3Prompt,
): Promise<RequestTemplate | undefined> {
  const [a, b] = await Promise.all([probe(model, options, prompt, 0), probe(model, options, prompt, 1)]);
  if (a === undefined || b === undefined || a.url !== b.url) return undefined;
  if (JSON.stringify(a.headers) !== JSON.stringify(b.headers) || JSON.stringify(a.warnings) !== JSON.stringify(b.warnings))
    return undefined;
  const pieces = a.pieces;
  if (pieces.literal.length !== b.pieces.literal.length) return undefined;
  for (let i = 0; i < pieces.literal.length; i++) if (pieces.literal[i] !== b.pieces.literal[i]) return undefined;
  if (pieces.order.join() !== b.pieces.order.join()) return undefined;
  const { literal, order } = pieces;
  const body = (texts: readonly string[]) => {
    let out = literal[0]!;
    for (let i = 0; i < order.length; i++) out += escaped(texts[order[i]!]!) + literal[i + 1]!;
    return out;
  };
  return { url: a.url, headers: readyHeaders(a.headers), warnings: a.warnings, body };
}

/** One request of the shape as the SDK builds it, with placeholders for the texts. */
async function probe(model: SdkModelSource, options: ShapeOptions, prompt: LanguageModelV3Prompt, variant: number) {
  const nonce = `consilium-${process.pid}-${++probes}`;
  let n = 0;
  const texts: LanguageModelV3Prompt = prompt.map((message) =>
    message.role === 'system'
      ? { role: 'system', content: placeholder(nonce, n++, variant) }
      : {
          ...message,
          content: message.content.map((part) =>
            part.type === 'text' ? { ...part, text: placeholder(nonce, n++, variant) } : part,
          ),
        },
  ) as LanguageModelV3Prompt;
  const controller = new AbortController();
  const capture: SdkRequestPlan = { mode: 'capture' };
  let warnings: SharedV3Warning[] = [];
  try {
    const sdk = await model.withFetch(sdkFetch(capture, model.transport));
    const { stream } = await sdk.doStream({ ...options, prompt: texts, abortSignal: controller.signal });
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value.type === 'stream-start') warnings = value.warnings;
      }
    } catch {
      // The stream over an empty body may complain that it ended early; only its start matters.
    }
  } finally {
    controller.abort();
  }
  const request = capture.request;
  if (request === undefined || (request.method ?? 'POST') !== 'POST' || typeof request.body !== 'string') return undefined;
  const pieces = templatePieces(request.body, nonce, n, variant);
  if (pieces === undefined) return undefined;
  return { url: request.url, headers: Object.fromEntries(new Headers(request.headers)), warnings, pieces };
}

/**
 * The body cut at the `count` placeholders: the literal pieces around them and which text goes in
 * each gap; `undefined` when a placeholder is not there exactly once, the nonce appears anywhere
 * else, or tools were added.
 */
export function templatePieces(
  body: string,
  nonce: string,
  count: number,
  variant = 0,
): { literal: string[]; order: number[] } | undefined {
  if (hasTools(body)) return undefined;
  const at: { index: number; text: number; length: number }[] = [];
  for (let i = 0; i < count; i++) {
    const mark = escaped(placeholder(nonce, i, variant));
    const index = body.indexOf(mark);
    if (index === -1 || body.indexOf(mark, index + 1) !== -1) return undefined;
    at.push({ index, text: i, length: mark.length });
  }
  if (body.split(nonce).length - 1 !== count) return undefined;
  at.sort((x, y) => x.index - y.index);
  const literal: string[] = [];
  const order: number[] = [];
  let from = 0;
  for (const { index, text, length } of at) {
    literal.push(body.slice(from, index));
    order.push(text);
    from = index + length;
  }
  literal.push(body.slice(from));
  return { literal, order };
}

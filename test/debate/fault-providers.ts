/**
 * The five panel providers at the network edge (msw) for whole debates: each handler reads from the
 * request body which call of the debate it is answering (round 1, a critique round, the final
 * round, the verdict or its repair), answers it in the provider's real wire format (prose, or JSON
 * text meeting `finalPositionSchema` / `verdictDraftSchema` where structured output is asked for),
 * and lets a test replace any one answer with a fault.
 *
 * Many debates can run at once: each carries a case tag in its question, which every prompt quotes,
 * so a handler finds the case (its script and its record of calls) from the body alone.
 */
import { type HttpHandler, HttpResponse, http, passthrough } from 'msw';
import type { SlotConfig } from '../../server/src/config/slots.js';
import { type Observed, PROVIDERS, sseResponse, stallUntilAborted, type WireProvider } from './wire.js';

export type SlotNumber = SlotConfig['slot'];

/** The five native providers, in slot order: slot N is `PANEL[N - 1]`. */
export const PANEL: readonly WireProvider[] = PROVIDERS.slice(0, 5);

/** Every panel slot's key: all five live. */
export const LIVE_ENV: Record<string, string> = Object.assign({}, ...PANEL.map((p) => p.env));

/**
 * Which call of a debate a request is. `repair` is the verdict's second try after invalid output, `finalRepair` a final
 * answer's; `ranking` a peer ranking.
 */
export type Stage = 'round1' | 'middle' | 'final' | 'finalRepair' | 'synthesis' | 'repair' | 'ranking';

/** Reads the stage from the prompt text, as the engine's prompts word it. */
function stageOf(body: string): { stage: Stage; round: number } {
  if (body.includes('You are writing the verdict')) {
    return { stage: body.includes('Your previous reply could not be used') ? 'repair' : 'synthesis', round: 0 };
  }
  const ranking = /You are ranking the answers of a panel debate[\s\S]*?answers in round (\d)/.exec(body);
  if (ranking) return { stage: 'ranking', round: Number(ranking[1]) };
  const final = /This is round (\d), the final round/.exec(body);
  if (final) {
    const repair = body.includes('Your previous reply could not be used');
    return { stage: repair ? 'finalRepair' : 'final', round: Number(final[1]) };
  }
  const critique = /This is round (\d)\./.exec(body);
  if (critique) return { stage: 'middle', round: Number(critique[1]) };
  if (body.includes('Answer it on your own')) return { stage: 'round1', round: 1 };
  throw new Error(`No debate stage in the request body: ${body.slice(0, 300)}`);
}

/** What every healthy answer reports as usage. */
export const USAGE = { input: 20, output: 10 };

/** A healthy prose answer; the slot and round are in it so a transcript shows whose it is. */
export const prose = (slot: number, round: number) =>
  `Slot ${slot}, round ${round}: ship the smaller change first, then measure before the refactor.`;

export const AGREEMENT = 'Ship the smaller change first.';

/**
 * A healthy final-round answer: valid JSON for both final-round schemas, the named one (`slots`) and
 * the anonymous one (`responses`, "you" for itself).
 */
export function finalJson(slot: number): string {
  return JSON.stringify({
    position: `Slot ${slot} holds: ship the smaller change first.`,
    changed: slot === 2,
    changeReason: slot === 2 ? 'Slot 3 showed the refactor blocks the release.' : 'No critique changed the trade-off.',
    agreements: [{ statement: AGREEMENT, slots: [slot], responses: ['you'] }],
    disagreements: [{ topic: 'When to refactor', positions: [{ position: 'Next quarter.', slots: [slot], responses: ['you'] }] }],
  });
}

/** The labels a prompt quotes ("Response A said:"), in its order. */
export const labelsIn = (body: string) => [...body.matchAll(/Response ([A-E]) said:/g)].map((m) => m[1]!);

/** A healthy ranking: every response the prompt shows, in label order. */
export function rankingJson(body: string): string {
  return JSON.stringify({ ranking: labelsIn(body).map((label) => ({ response: label, reason: `Response ${label} is clear.` })) });
}

/** A healthy verdict: valid `verdictDraftSchema` JSON. */
export function verdictJson(slot: number): string {
  return JSON.stringify({
    summary: `Verdict by slot ${slot}: the panel backs the smaller change first.`,
    answer: 'Ship the smaller change now; plan the refactor once it is measured.',
    actions: {
      P0: [
        {
          title: 'Ship the smaller change',
          rationale: 'Lowest risk.',
          supportingSlots: [1, 2, 3, 4, 5],
          supportingRounds: [1, 2, 3],
        },
      ],
      P1: [],
      P2: [],
    },
    dissent: [],
    confidence: 0.8,
  });
}

/** JSON that does not parse: the model's final-round answer cut short. */
export const INVALID_FINAL = '{"position": "Ship the smaller change first", "changed": maybe}';
/** A final answer's repair that parses but breaks the schema (empty position, no agreements). */
export const INVALID_FINAL_AGAIN = '{"position": "", "changed": false}';
/** A verdict that does not parse. */
export const INVALID_VERDICT = '{"summary": "The panel backs the smaller change", "answer": ';
/** A verdict that parses but breaks the schema (empty summary, confidence above 1, no actions). */
export const INVALID_VERDICT_AGAIN = '{"summary": "", "answer": "Ship it", "confidence": 7}';

/** The healthy answer for a stage (`body`, the request's, for a ranking of the labels it shows). */
export function healthyText(slot: number, stage: Stage, round: number, body = ''): string {
  if (stage === 'final' || stage === 'finalRepair') return finalJson(slot);
  if (stage === 'ranking') return rankingJson(body);
  if (stage === 'synthesis' || stage === 'repair') return verdictJson(slot);
  return prose(slot, round);
}

/** Splits a text into three deltas, as a model streams it. */
export function deltasOf(text: string): string[] {
  const a = Math.ceil(text.length / 3);
  return [text.slice(0, a), text.slice(a, 2 * a), text.slice(2 * a)].filter((d) => d.length > 0);
}

/** The number of frames of `frames` up to and including the one carrying `delta`. */
export function framesThrough(frames: readonly string[], delta: string): number {
  const index = frames.findIndex((f) => f.includes(JSON.stringify(delta)));
  if (index < 0) throw new Error(`No frame carries ${JSON.stringify(delta)}`);
  return index + 1;
}

/** One request a provider received. */
export interface Call {
  slot: SlotNumber;
  provider: string;
  stage: Stage;
  round: number;
  body: string;
  /** Set when the request's signal aborted while its handler still held the response open. */
  observed: Observed;
}

/** Decides one answer; `undefined` means the healthy one. */
export type Responder = (call: Call, request: Request, p: WireProvider) => Response | Promise<Response> | undefined;

/** A healthy streamed answer of `text`. */
export function answer(p: WireProvider, request: Request, call: Call, text: string): Response {
  return sseResponse(request, p.frames(deltasOf(text), USAGE), {}, call.observed);
}

export interface Case {
  tag: string;
  /** The question to ask: it carries the tag, which every prompt of the debate quotes. */
  question: string;
  calls: Call[];
  /** The calls of one slot at one stage, in order. */
  callsOf(slot: number, stage: Stage): Call[];
}

/** The provider network for many concurrent debates, each a case with its own script. */
export class FaultNet {
  readonly #cases = new Map<string, { case: Case; respond: Responder | undefined }>();
  #next = 0;

  /** msw handlers for the five providers, and a passthrough for our own server on loopback. */
  handlers(): HttpHandler[] {
    return [
      ...PANEL.map((p, index) =>
        http.post(p.url, async ({ request }) => {
          const body = await request.clone().text();
          const tag = /\[case (c\d+)\]/.exec(body)?.[1];
          const entry = tag === undefined ? undefined : this.#cases.get(tag);
          if (!entry) {
            return HttpResponse.json(p.errorBody(400, `No test case in this request: ${body.slice(0, 200)}`) as object, {
              status: 400,
            });
          }
          const call: Call = {
            slot: (index + 1) as SlotNumber,
            provider: p.name,
            ...stageOf(body),
            body,
            observed: { aborted: false },
          };
          entry.case.calls.push(call);
          return (
            (await entry.respond?.(call, request, p)) ??
            answer(p, request, call, healthyText(call.slot, call.stage, call.round, call.body))
          );
        }),
      ),
      // Requests to the app under test (real HTTP server on loopback) go through untouched.
      http.all(/^http:\/\/127\.0\.0\.1:\d+\//, () => passthrough()),
    ];
  }

  /** A new case; `respond` replaces the answers it returns something for. */
  open(respond?: Responder): Case {
    const tag = `c${++this.#next}`;
    const calls: Call[] = [];
    const c: Case = {
      tag,
      question: `[case ${tag}] Should we ship the big refactor or the smaller change first?`,
      calls,
      callsOf: (slot, stage) => calls.filter((x) => x.slot === slot && x.stage === stage),
    };
    this.#cases.set(tag, { case: c, respond });
    return c;
  }
}

/** The faults the matrix injects. */
export type Fault = 'rate_limited' | 'server_error' | 'timeout' | 'connection_reset' | 'invalid_json';

/** The Retry-After the 429 stand-in sends, in seconds: not the backoff's 1 s or 2 s, so a wait of it is the header's. */
export const RETRY_AFTER_S = 7;

/**
 * The fault's response, as the provider would send it: a 429 with Retry-After, a 500 with the
 * provider's error body, a response that never comes, a connection cut after the first delta, or
 * output that is not the JSON asked for (prose rounds get the same text; no JSON is asked there).
 */
export function faultResponse(fault: Fault, p: WireProvider, request: Request, call: Call): Response | Promise<Response> {
  switch (fault) {
    case 'rate_limited':
      return HttpResponse.json(p.errorBody(429, 'Rate limit reached, slow down') as object, {
        status: 429,
        headers: { 'retry-after': String(RETRY_AFTER_S) },
      });
    case 'server_error':
      return HttpResponse.json(p.errorBody(500, 'The server had an error while processing your request') as object, {
        status: 500,
      });
    case 'timeout':
      return stallUntilAborted(request, call.observed);
    case 'connection_reset': {
      const deltas = deltasOf(healthyText(call.slot, call.stage, call.round));
      const frames = p.frames(deltas, USAGE);
      return sseResponse(request, frames, { resetAfter: framesThrough(frames, deltas[0]!) }, call.observed);
    }
    case 'invalid_json':
      return answer(p, request, call, invalidText(call.stage));
  }
}

/** The invalid output a stage gets: the repair's is invalid in a different way from the first try's. */
export function invalidText(stage: Stage): string {
  if (stage === 'repair') return INVALID_VERDICT_AGAIN;
  if (stage === 'synthesis') return INVALID_VERDICT;
  if (stage === 'finalRepair') return INVALID_FINAL_AGAIN;
  return INVALID_FINAL;
}

/** One server-sent event as the client reads it. */
export interface SseEvent {
  event: string;
  data: unknown;
}

/** Reads server-sent events from a response body, one at a time, as they arrive. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
        }
        if (data.length > 0) yield { event, data: JSON.parse(data.join('\n')) };
      }
    }
  } finally {
    reader.releaseLock();
  }
}

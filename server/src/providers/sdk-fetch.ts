/**
 * The `fetch` a provider SDK is given for one call that lets the SDK build its request. The call
 * says what to do with that request (`SdkRequestPlan`): record it (learning a template), answer it
 * with what the template's request got (so the SDK makes its own error of it), or send it and take
 * its event stream for `streamAnswer` to read. The AI SDK takes `fetch` only as a provider setting,
 * so each such call gets an SDK model of its own (`ProviderLanguageModel.withFetch`).
 */
import type { EventStream, Transport } from './transport.js';

/** A request as the SDK built it, recorded instead of sent. */
export interface CapturedRequest {
  url: string;
  method?: string;
  headers?: HeadersInit;
  body?: unknown;
}

/** What a request sent from a template got, for the SDK to make its own answer or error of. */
export type Replay = { response: Response } | { error: unknown };

export type SdkRequestPlan =
  /** Recorded in `request`, not sent; the SDK gets an empty event stream, whose start carries its warnings. */
  | { mode: 'capture'; request?: CapturedRequest }
  /** Not sent: the SDK gets `answer`, what the same request sent from a template got. */
  | { mode: 'replay'; answer: Replay }
  /** Sent; its event stream goes to `stream`, and the SDK gets the status and headers with an empty body (its warnings). */
  | { mode: 'take'; stream?: EventStream }
  /** Sent; its event stream goes to `stream`, and the SDK is stopped there (`StreamHandedOver`): its warnings are known. */
  | { mode: 'handover'; stream?: EventStream };

/**
 * Thrown through the SDK once the body is handed over: the SDK passes an error that is neither an
 * abort nor a network failure on unchanged, and builds none of its per-call stream machinery.
 */
export class StreamHandedOver extends Error {
  override name = 'StreamHandedOver';
}

/** One instance for every hand-over: it is a signal, not a failure, and an `Error` per call captured a stack trace each time. */
const HANDED_OVER = new StreamHandedOver('The response body went to the call that claimed it');

/** Whether a request body asks for tools (every format names them so): their streams stay with the SDK, which reads tool calls. */
export function hasTools(body: string): boolean {
  return body.includes('"tool_choice"') || body.includes('"tools":[{');
}

/** The fetch for the SDK's request in one call, doing with it what `plan` says. */
export function sdkFetch(plan: SdkRequestPlan, transport: Transport): typeof fetch {
  let replayed = false;
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    switch (plan.mode) {
      case 'capture':
        plan.request = {
          url,
          ...(init?.method !== undefined && { method: init.method }),
          ...(init?.headers !== undefined && { headers: init.headers }),
          body: init?.body,
        };
        return new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
      case 'replay':
        // The answer is for the SDK's request; a second one (none is expected) is sent as it is.
        if (replayed) return transport.fetch(input, init);
        replayed = true;
        if ('error' in plan.answer) throw plan.answer.error;
        return plan.answer.response;
      default: {
        if (typeof init?.body !== 'string' || hasTools(init.body)) return transport.fetch(input, init);
        const reply = await transport.send(url, init);
        if (reply instanceof Response) return reply;
        plan.stream = reply;
        if (plan.mode === 'handover') throw HANDED_OVER;
        return new Response('', { status: reply.status, headers: reply.headers });
      }
    }
  };
}

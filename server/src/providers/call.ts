/**
 * `streamAnswer`: one model call with retries, a deadline and cancellation, whatever the model
 * (a provider's, or the offline stand-in), ending in an answer or a named error, never a throw.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  SharedV3Warning,
} from '@ai-sdk/provider';
import type { Schema } from '@ai-sdk/provider-utils';
// Types only, for the AI SDK's global declarations (`AI_SDK_LOG_WARNINGS`); the package never loads.
import type {} from 'ai';
import type { z } from 'zod';
import type { AnswerError, FinishReason, Usage } from '../../../sdk/src/generated/types.gen.js';
import { classifyError, type Failure, providerRequestId, systemCause } from './errors.js';
import { embeddedJson } from './lenient-json.js';
import { ProviderLanguageModel, type SlotModel } from './models.js';
import { fillable, promptTexts, type RequestTemplate, type ShapeOptions } from './request-template.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryAfterMs, retryDelayMs } from './retry.js';
import { type Replay, type SdkRequestPlan, StreamHandedOver, sdkFetch } from './sdk-fetch.js';
import { sleep as defaultSleep } from './sleep.js';
import type { EventStream } from './transport.js';
import { addUsage } from './usage.js';
import { type WireFormat, wireFrames } from './wire/formats.js';
import { SseDecoder } from './wire/sse-decoder.js';

const MAX_TIMER_MS = 2_147_483_647;

/** One turn of a conversation, text only (what the debate sends). */
export interface TextMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** Either a single user prompt or a whole conversation. */
export type AnswerInput = { prompt: string; messages?: never } | { messages: TextMessage[]; prompt?: never };

export type StreamAnswerOptions<T = never> = AnswerInput & {
  model: Pick<SlotModel, 'languageModel'>;
  system?: string;
  /** The caller's cancel switch; one signal may be shared by every call of a debate. */
  signal?: AbortSignal;
  /** Deadline for the whole call, retries and their waits included. */
  timeoutMs: number;
  /** Further attempts after a retryable failure that happened before any text arrived. Default 2. */
  maxRetries?: number;
  /** Each text delta as it streams; for structured output, fragments of the JSON text. If it throws, `streamAnswer` rejects with that error. */
  onDelta?: (text: string) => void;
  /** Asks for JSON matching this schema (`responseFormat: json`) and returns it parsed as `object`. */
  output?: z.ZodType<T>;
  maxOutputTokens?: number;
  temperature?: number;
  retryPolicy?: RetryPolicy;
  /** How to wait between attempts; tests pass one that records the wait and returns at once. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Each failed attempt, retried or not (not the caller's own cancel), for the operator's log. */
  onAttemptFailed?: (failure: AttemptFailure) => void;
};

/** One failed attempt, with what an operator needs to find out why. */
export interface AttemptFailure extends Failure {
  attempt: number;
  /** The system error under a network failure (`ECONNREFUSED`, `ENOTFOUND`, `ERR_SSL_…`), when there was one. */
  cause?: string;
  /** Whether another attempt follows. */
  retrying: boolean;
  /** Time from the call's start. */
  elapsedMs: number;
}

/** The contract's `Answer` without slot and round bookkeeping, plus the parsed object and attempts made. */
export interface AnswerResult<T = never> {
  /**
   * Everything the model streamed in the last attempt. Partial when the stream broke or was
   * aborted; for `invalid_output` the raw text to show the model in a repair prompt.
   */
  text: string;
  /** As the provider reported it; zeros when the call failed before the provider counted. */
  usage: Usage;
  latencyMs: number;
  /**
   * The model's own reason when it finished (also when its JSON then failed validation), `aborted`
   * when the caller cancelled, `error` for every other failure.
   */
  finishReason: FinishReason;
  error?: AnswerError;
  /** The parsed, validated object when `output` was given and the model met it. */
  object?: T;
  attempts: number;
}

type ProviderUtils = typeof import('@ai-sdk/provider-utils');
type ResponseFormat = NonNullable<LanguageModelV3CallOptions['responseFormat']>;

/** Loaded on the first structured call: plain-text calls, and a server's start, never pay for it. */
let providerUtils: Promise<ProviderUtils> | undefined;
const loadProviderUtils = () => {
  providerUtils ??= import('@ai-sdk/provider-utils');
  return providerUtils;
};

interface StructuredOutput {
  schema: Schema<unknown>;
  responseFormat: ResponseFormat;
}

/**
 * One converted schema per zod schema: building the JSON Schema again (~0.4 ms) would sit on the
 * critical path of every structured call of a round. The conversion is the AI SDK's own
 * (`asSchema`), so providers get the same JSON Schema that `Output.object` would send.
 */
const structured = new WeakMap<z.ZodType<unknown>, Promise<StructuredOutput>>();

function structuredOutput(schema: z.ZodType<unknown>): Promise<StructuredOutput> {
  let output = structured.get(schema);
  if (!output) {
    output = loadProviderUtils().then(async ({ asSchema }) => {
      const converted = asSchema(schema);
      return { schema: converted, responseFormat: { type: 'json', schema: await converted.jsonSchema } };
    });
    // A failed conversion is not cached: the next call tries again.
    output.catch(() => structured.delete(schema));
    structured.set(schema, output);
  }
  return output;
}

/** The output did not parse or did not meet the schema; worded as the AI SDK's `NoObjectGeneratedError`. */
interface InvalidOutput {
  message: string;
  cause: unknown;
}

/** What one `doStream` call ended with. */
interface Attempt {
  text: string;
  deltas: number;
  /** The provider's id for this request, from the headers of a response that started streaming. */
  requestId?: string;
  /** The wait a response that started streaming asked for (an error frame may follow), read when it came. */
  retryAfterMs?: number;
  /**
   * How the stream ended by itself: the reason and counts, whether the provider said it was done
   * (a body cut before that is `stream_truncated`), and a refusal's words.
   */
  finish?: { reason: FinishReason; usage: Usage; done: boolean; refusal?: string; toolCall?: string };
  /** The first tool the model asked to call, as the SDK's stream parts named it. */
  toolCall?: string;
  /** The counts reported before the stream failed, when it did not finish (what was billed up to there). */
  usage?: Usage;
  /** An `error` part or a throw from the stream: the first one, which caused the rest. */
  failure?: unknown;
  aborted: boolean;
  object?: unknown;
  invalid?: InvalidOutput;
}

/**
 * One model call, streamed, with retries, a deadline and cancellation. It never throws for
 * provider failures: each ends as an `error` with a contract code. Retries cover failures before
 * the first delta (429, 5xx, 408/409, network), honouring Retry-After; once text has reached
 * `onDelta` a failure is final, since a retry would repeat deltas the caller already has.
 *
 * It drives the provider itself rather than through `streamText`, whose pipeline (transform
 * streams per part, telemetry, step bookkeeping) cost most of a debate's CPU and memory. What it
 * did that matters here is kept: the same request, JSON parsed and validated as `Output.object`
 * does, usage and finish reason as reported, warnings, abort.
 */
export async function streamAnswer<T = never>(options: StreamAnswerOptions<T>): Promise<AnswerResult<T>> {
  const started = performance.now();
  const maxRetries = options.maxRetries ?? 2;
  const policy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
  const wait = options.sleep ?? defaultSleep;
  const caller = options.signal;
  // One controller per call, aborted by the caller's signal or by the deadline; which one fired
  // decides between `aborted` and `timeout`.
  const controller = new AbortController();
  let timedOut = false;
  // setTimeout fires at once for delays past 2^31-1 ms, so a huge or infinite deadline means none.
  const timer =
    options.timeoutMs <= MAX_TIMER_MS
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new DOMException(`No answer within ${options.timeoutMs} ms`, 'TimeoutError'));
        }, options.timeoutMs)
      : undefined;
  const onCallerAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener('abort', onCallerAbort, { once: true });

  // What every attempt reported: a provider bills an attempt that failed for what it had counted.
  let spent: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const finish = (attempt: Attempt, attempts: number, failure?: Failure): AnswerResult<T> => {
    const result: AnswerResult<T> = {
      text: attempt.text,
      usage: spent,
      latencyMs: Math.round(performance.now() - started),
      finishReason: finishReasonOf(attempt, failure),
      attempts,
    };
    if (failure) result.error = { ...failure, attempts };
    else if (attempt.object !== undefined) result.object = attempt.object as T;
    return result;
  };
  const stopped = (): Failure | undefined => {
    if (caller?.aborted) return { code: 'aborted', message: 'Cancelled by the caller', retryable: false };
    if (timedOut) return { code: 'timeout', message: `No answer within ${options.timeoutMs} ms`, retryable: true };
    return undefined;
  };

  try {
    const prompt = promptOf(options);
    let output: StructuredOutput | undefined;
    if (options.output !== undefined) {
      try {
        output = await structuredOutput(options.output as z.ZodType<unknown>);
      } catch (error) {
        return finish({ text: '', deltas: 0, aborted: false, failure: error }, 1, classifyError(error));
      }
    }
    const callOptions: ShapeOptions = {
      ...(output !== undefined && { responseFormat: output.responseFormat }),
      ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
      ...(options.temperature !== undefined && { temperature: options.temperature }),
    };
    const call: Call = { prompt, texts: promptTexts(prompt), options: callOptions, shape: callShape(options, prompt, output) };
    if (output !== undefined) call.output = output;
    for (let attempts = 1; ; attempts++) {
      const attempt = await runAttempt(options, call, controller.signal);
      const reported = attempt.finish?.usage ?? attempt.usage;
      if (reported) spent = addUsage(spent, reported);
      const failure = failureOf(attempt, stopped);
      const report = (retrying: boolean) => {
        if (failure === undefined || failure.code === 'aborted' || !options.onAttemptFailed) return;
        const cause = systemCause(attempt.failure);
        const elapsedMs = Math.round(performance.now() - started);
        options.onAttemptFailed({ ...failure, attempt: attempts, ...(cause && { cause }), retrying, elapsedMs });
      };
      if (failure === undefined || answered(failure)) {
        report(false);
        return finish(attempt, attempts, failure);
      }
      const delay = retryDelayMs(attempt.failure, attempts, policy, attempt.retryAfterMs);
      if (!failure.retryable || attempt.deltas > 0 || attempts > maxRetries || delay === undefined || stopped()) {
        report(false);
        return finish(attempt, attempts, failure);
      }
      report(true);
      try {
        await wait(delay, controller.signal);
      } catch {
        return finish(attempt, attempts, stopped() ?? failure);
      }
    }
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onCallerAbort);
  }
}

/** What every attempt of one call sends. */
interface Call {
  prompt: LanguageModelV3Prompt;
  /** The prompt's texts in order (what a request template takes). */
  texts: string[];
  output?: StructuredOutput;
  /** The call's options but the prompt: output format, limits. */
  options: ShapeOptions;
  /** What decides the request's form and the SDK's warnings, all but the texts (see `callShape`). */
  shape: string;
}

/** The prompt as `streamText` would hand it to the provider: the system message, then text parts. */
function promptOf(input: AnswerInput & { system?: string }): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  if (input.system !== undefined) prompt.push({ role: 'system', content: input.system });
  if (input.messages === undefined) prompt.push({ role: 'user', content: [{ type: 'text', text: input.prompt }] });
  else for (const m of input.messages) prompt.push({ role: m.role, content: [{ type: 'text', text: m.content }] });
  return prompt;
}

/**
 * One attempt, by one of three paths. A provider's model sends the request from the shape's
 * template and reads its event stream here (`fromTemplate`); when the shape has no template, or
 * the template's request got no event stream, the SDK builds the request (`throughSdk`). Any other
 * model (the offline one, a test's) streams its own parts (`fromModelStream`).
 */
async function runAttempt<T>(options: StreamAnswerOptions<T>, call: Call, signal: AbortSignal): Promise<Attempt> {
  const model = options.model.languageModel;
  if (!(model instanceof ProviderLanguageModel)) return fromModelStream(model, options, call, signal);
  const template = await templateOf(model, call);
  if (template === undefined) return throughSdk(model, options, call, signal);
  const sent = await fromTemplate(model, template, options, call, signal);
  return 'replay' in sent ? throughSdk(model, options, call, signal, sent.replay) : sent;
}

const newAttempt = (): Attempt => ({ text: '', deltas: 0, aborted: false });

/**
 * The request filled in from the template and sent without the SDK. What is not an event stream
 * (an HTTP error, a network failure) comes back as `replay`: the SDK gets it as the answer to its
 * own request, so the error is the one the SDK makes of it.
 */
async function fromTemplate<T>(
  model: ProviderLanguageModel,
  template: RequestTemplate,
  options: StreamAnswerOptions<T>,
  call: Call,
  signal: AbortSignal,
): Promise<Attempt | { replay: Replay }> {
  let reply: EventStream | Response;
  try {
    reply = await model.transport.send(template.url, {
      method: 'POST',
      headers: template.headers,
      body: template.body(call.texts),
      signal,
    });
  } catch (error) {
    if (signal.aborted) return { ...newAttempt(), aborted: true };
    return { replay: { error } };
  }
  if (reply instanceof Response) return { replay: { response: reply } };
  logWarnings(template.warnings, model);
  return readEventStream(reply, model, options, call, signal, newAttempt());
}

/**
 * The SDK builds the request, with a fetch made for this call (`sdk-fetch.ts`) that takes its
 * event stream (or gives it `replay`). The first call of a shape lets the SDK go on over an empty
 * body, for its warnings; later calls stop it at the response and log those warnings again.
 */
async function throughSdk<T>(
  model: ProviderLanguageModel,
  options: StreamAnswerOptions<T>,
  call: Call,
  signal: AbortSignal,
  replay?: Replay,
): Promise<Attempt> {
  const attempt = newAttempt();
  const knownWarnings = replay === undefined ? model.callWarnings.get(call.shape) : undefined;
  const plan: SdkRequestPlan =
    replay !== undefined
      ? { mode: 'replay', answer: replay }
      : knownWarnings !== undefined
        ? { mode: 'handover' }
        : { mode: 'take' };
  let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
  try {
    const sdk = await model.withFetch(sdkFetch(plan, model.transport));
    const { stream, response } = await sdk.doStream({ prompt: call.prompt, ...call.options, abortSignal: signal });
    reader = stream.getReader();
    setResponseHeaders(attempt, response?.headers);
  } catch (error) {
    if (!(error instanceof StreamHandedOver)) return failed(attempt, error, signal);
  }
  const taken = plan.mode === 'take' || plan.mode === 'handover' ? plan.stream : undefined;
  if (taken === undefined) {
    // The SDK kept the response (an HTTP error, a request with tools): its parts are the answer.
    if (reader !== undefined) await readParts(reader, options, signal, attempt);
    return parsed(attempt, call);
  }
  if (reader !== undefined) {
    const warnings = await sdkWarnings(reader);
    logWarnings(warnings, model);
    model.callWarnings.set(call.shape, warnings);
  } else if (knownWarnings !== undefined) logWarnings(knownWarnings, model);
  return readEventStream(taken, model, options, call, signal, attempt);
}

/** Any other model's own stream of parts. */
async function fromModelStream<T>(
  model: LanguageModelV3,
  options: StreamAnswerOptions<T>,
  call: Call,
  signal: AbortSignal,
): Promise<Attempt> {
  const attempt = newAttempt();
  let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart>;
  try {
    const { stream, response } = await model.doStream({ prompt: call.prompt, ...call.options, abortSignal: signal });
    reader = stream.getReader();
    setResponseHeaders(attempt, response?.headers);
  } catch (error) {
    return failed(attempt, error, signal);
  }
  await readParts(reader, options, signal, attempt);
  return parsed(attempt, call);
}

/** An attempt that got no stream: an HTTP error (`APICallError`), or the abort of a request still waiting for its response. */
function failed(attempt: Attempt, error: unknown, signal: AbortSignal): Attempt {
  if (signal.aborted) attempt.aborted = true;
  else attempt.failure = error;
  return attempt;
}

/** What a response that started streaming says in its headers: the provider's request id, a Retry-After. */
function setResponseHeaders(attempt: Attempt, headers: Record<string, string> | undefined): void {
  const requestId = providerRequestId(headers);
  if (requestId !== undefined && attempt.requestId === undefined) attempt.requestId = requestId;
  attempt.retryAfterMs ??= retryAfterMs(headers);
}

/** The warnings of the SDK's own stream over an empty body (its `stream-start`); nothing of the answer is in it. */
async function sdkWarnings(reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart>): Promise<SharedV3Warning[]> {
  let warnings: SharedV3Warning[] = [];
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      if (part.type === 'stream-start') warnings = part.warnings;
    }
  } catch {
    // The empty body's end; the event stream read after this reports the real outcome.
  }
  return warnings;
}

/** The event stream taken from the response, read here, and the attempt's output parsed. */
async function readEventStream<T>(
  stream: EventStream,
  model: ProviderLanguageModel,
  options: StreamAnswerOptions<T>,
  call: Call,
  signal: AbortSignal,
  attempt: Attempt,
): Promise<Attempt> {
  setResponseHeaders(attempt, stream.headers);
  await readWire(stream, model.wire, model.provider, options, signal, attempt);
  return parsed(attempt, call);
}

/** The attempt with its structured output parsed and validated, when it finished well. */
async function parsed(attempt: Attempt, call: Call): Promise<Attempt> {
  if (call.output !== undefined && attempt.finish?.done && attempt.failure === undefined && !attempt.aborted) {
    await parseOutput(attempt, call.output.schema);
  }
  return attempt;
}

/** The call's template, or `undefined` when the SDK builds this call's request (see `request-template.ts`). */
async function templateOf(model: ProviderLanguageModel, call: Call): Promise<RequestTemplate | undefined> {
  if (!fillable(call.texts)) return undefined;
  try {
    return await model.template(call.shape, call.options, call.prompt);
  } catch {
    // The SDK could not build the request (a package that would not load): its own call says why.
    return undefined;
  }
}

const schemaIds = new WeakMap<object, number>();
let schemaCount = 0;

/**
 * What decides a provider's request and warnings for a call besides the prompt's texts: the
 * options and their values (a temperature may be clamped, a token limit capped, each with its own
 * warning), the output schema, and the prompt's form (a system message, a conversation).
 */
function callShape<T>(
  options: StreamAnswerOptions<T>,
  prompt: LanguageModelV3Prompt,
  output: StructuredOutput | undefined,
): string {
  let schema = 0;
  if (output !== undefined) {
    schema = schemaIds.get(output) ?? 0;
    if (schema === 0) {
      schema = ++schemaCount;
      schemaIds.set(output, schema);
    }
  }
  let roles = '';
  for (const m of prompt) roles += m.role[0];
  return `${schema}|${options.maxOutputTokens ?? ''}|${options.temperature ?? ''}|${roles}`;
}

/**
 * Reads a provider's event stream straight from the response body: deltas to `onDelta` as their
 * frames arrive, the finish and usage when the body ends.
 */
async function readWire<T>(
  stream: EventStream,
  format: WireFormat,
  provider: string,
  options: StreamAnswerOptions<T>,
  signal: AbortSignal,
  attempt: Attempt,
): Promise<void> {
  // Set once the caller aborted or its callback threw: nothing more is delivered.
  let stopped = false;
  let callbackError: { error: unknown } | undefined;
  // The text of one read's frames, delivered as one delta once the read is decoded: frames that
  // arrived together (in one segment, or while the previous read was being handled) become one
  // event, one SSE message and one stored row instead of one each; nothing waits for later bytes.
  let gathered = '';
  const deliver = () => {
    if (gathered === '' || stopped) return;
    const delta = gathered;
    gathered = '';
    attempt.text += delta;
    attempt.deltas++;
    try {
      options.onDelta?.(delta);
    } catch (error) {
      callbackError = { error };
      stopped = true;
    }
    if (signal.aborted) stopped = true;
  };
  const frames = wireFrames(
    format,
    {
      text: (delta) => {
        gathered += delta;
      },
      error: (error) => {
        attempt.failure ??= error;
      },
    },
    provider.split('.')[0],
  );
  const decoder = () =>
    new SseDecoder((event, data) => {
      if (!stopped) frames.frame(event, data);
    });
  let sse = decoder();
  let body = stream.body;
  let settled = false;
  try {
    for (;;) {
      const { done, value } = await body.read();
      if (done) {
        settled = true;
        sse.end();
        deliver();
        if (callbackError) throw callbackError.error;
        // A Gemini answer continued in another request: its frames follow on the same reader.
        const token = frames.continuation?.();
        if (token !== undefined && !signal.aborted && attempt.failure === undefined) {
          body = await stream.resend({ continuationToken: token });
          settled = false;
          sse = decoder();
          continue;
        }
        attempt.finish = frames.finish();
        break;
      }
      if (!signal.aborted) {
        sse.push(value);
        deliver();
      }
      if (callbackError) throw callbackError.error;
      if (signal.aborted) {
        attempt.aborted = true;
        break;
      }
    }
  } catch (error) {
    // The caller's bug, not the provider's: it propagates (after `finally` cancels the body).
    if (callbackError) throw callbackError.error;
    // A body cut mid-stream (ECONNRESET, undici's "terminated"), or the abort of the fetch.
    settled = true;
    if (signal.aborted) attempt.aborted = true;
    else attempt.failure ??= error;
  } finally {
    if (!settled) body.cancel();
    if (attempt.finish === undefined) attempt.usage = frames.finish().usage;
  }
}

/** Reads a model's stream parts (the offline model's, or a response the SDK kept). */
async function readParts<T>(
  reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart>,
  options: StreamAnswerOptions<T>,
  signal: AbortSignal,
  attempt: Attempt,
): Promise<void> {
  // Whether the stream finished or failed by itself; otherwise `finally` cancels it.
  let settled = false;
  let callbackError: { error: unknown } | undefined;
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) {
        settled = true;
        break;
      }
      // A provider whose body does not stop on abort (a mock) still ends the attempt at once.
      if (signal.aborted) {
        attempt.aborted = true;
        break;
      }
      if (part.type === 'stream-start') logWarnings(part.warnings, options.model.languageModel);
      else if (part.type === 'text-delta') {
        if (part.delta === '') continue;
        attempt.text += part.delta;
        attempt.deltas++;
        try {
          options.onDelta?.(part.delta);
        } catch (error) {
          callbackError = { error };
          throw error;
        }
      } else if (part.type === 'tool-input-start' || part.type === 'tool-call') attempt.toolCall ??= part.toolName;
      else if (part.type === 'error') attempt.failure ??= part.error;
      else if (part.type === 'finish')
        // An SDK reports a finish when the body ends; without the provider's own reason it was cut.
        attempt.finish = {
          reason: finishReason(part.finishReason.unified),
          usage: usage(part.usage),
          done: part.finishReason.raw !== undefined,
        };
    }
  } catch (error) {
    // The caller's bug, not the provider's: it propagates (after `finally` cancels the body).
    if (callbackError) throw callbackError.error;
    // A body cut mid-stream throws from the reader (APICallError, status 200) instead of an error part.
    settled = true;
    if (signal.aborted) attempt.aborted = true;
    else attempt.failure ??= error;
  } finally {
    // Releases the provider's response body (and its fetch) when the attempt stops reading early.
    if (!settled) reader.cancel().catch(() => {});
  }
}

/** Why an attempt produced no answer, or `undefined` when it did. */
function failureOf(attempt: Attempt, stopped: () => Failure | undefined): Failure | undefined {
  const completed = attempt.finish !== undefined && attempt.failure === undefined && !attempt.aborted;
  if (completed && attempt.finish!.done && attempt.finish!.reason !== 'error') {
    const outcome = outcomeOf(attempt);
    if (outcome) return outcome;
    if (!attempt.invalid) return undefined;
    // The repair prompt needs to know what was wrong: "could not parse" or the schema's complaint.
    const cause = attempt.invalid.cause instanceof Error ? `: ${attempt.invalid.cause.message}` : '';
    return { code: 'invalid_output', message: `${attempt.invalid.message}${cause}`, retryable: true };
  }
  const halted = stopped();
  if (halted) return halted;
  const failure: Failure =
    attempt.failure !== undefined
      ? classifyError(attempt.failure)
      : completed && attempt.finish!.done
        ? { code: 'upstream_error', message: 'The provider finished the answer with an error', retryable: true }
        : {
            code: 'stream_truncated',
            message: 'The stream ended before the provider said the answer was done; the text is partial',
            retryable: true,
          };
  // An error streamed after the response started: its id is in the headers of that response.
  if (failure.providerRequestId === undefined && attempt.requestId !== undefined) failure.providerRequestId = attempt.requestId;
  return failure;
}

/**
 * The model's own reason when it finished (kept for invalid_output: `length` explains cut-off JSON),
 * `aborted` when the caller cancelled, `error` for every other failure.
 */
function finishReasonOf(attempt: Attempt, failure: Failure | undefined): FinishReason {
  if (failure === undefined || answered(failure)) return attempt.finish?.reason ?? 'other';
  return failure.code === 'aborted' ? 'aborted' : 'error';
}

function finishReason(reason: string): FinishReason {
  return reason === 'stop' || reason === 'length' || reason === 'content-filter' || reason === 'error' ? reason : 'other';
}

/**
 * A provider's warnings for a call (DeepSeek: the schema goes in the prompt), handled as
 * `streamText` does: to the `AI_SDK_LOG_WARNINGS` function if one is set, nowhere if it is
 * `false`, else to the console.
 */
function logWarnings(warnings: SharedV3Warning[], model: LanguageModelV3): void {
  if (warnings.length === 0) return;
  const logger = globalThis.AI_SDK_LOG_WARNINGS;
  if (logger === false) return;
  if (typeof logger === 'function') {
    logger({ warnings, provider: model.provider, model: model.modelId });
    return;
  }
  for (const w of warnings) {
    const text =
      w.type === 'other'
        ? w.message
        : `The feature "${w.feature}" ${w.type === 'unsupported' ? 'is not supported' : 'is used in a compatibility mode'}.${w.details ? ` ${w.details}` : ''}`;
    console.warn(`AI SDK Warning (${model.provider} / ${model.modelId}): ${text}`);
  }
}

/** Parses and validates the JSON text as `Output.object` does, with its wording for each failure. */
async function parseOutput(attempt: Attempt, schema: Schema<unknown>): Promise<void> {
  const { safeParseJSON, safeValidateTypes } = await loadProviderUtils();
  let parsed = await safeParseJSON({ text: attempt.text });
  // Fenced, after a sentence, or followed by a note: the JSON inside is the answer (`lenient-json.ts`).
  const inner = parsed.success ? undefined : embeddedJson(attempt.text);
  if (inner !== undefined) parsed = await safeParseJSON({ text: inner });
  if (!parsed.success) {
    attempt.invalid = { message: 'No object generated: could not parse the response.', cause: parsed.error };
    return;
  }
  const valid = await safeValidateTypes({ value: parsed.value, schema });
  if (valid.success) attempt.object = valid.value;
  else attempt.invalid = { message: 'No object generated: response did not match schema.', cause: valid.error };
}

function usage(u: LanguageModelV3Usage): Usage {
  const inputTokens = u.inputTokens.total ?? 0;
  // The OpenAI-compatible SDK takes reasoning to be within the completion's count; xAI's is apart
  // from it (more reasoning than the whole completion says so).
  const total = u.outputTokens.total ?? 0;
  const reasoning = u.outputTokens.reasoning ?? 0;
  const outputTokens = reasoning > total ? total + reasoning : total;
  const result: Usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
  if (u.inputTokens.cacheRead) result.cacheReadTokens = u.inputTokens.cacheRead;
  if (u.inputTokens.cacheWrite) result.cacheWriteTokens = u.inputTokens.cacheWrite;
  if (u.outputTokens.reasoning) result.reasoningTokens = u.outputTokens.reasoning;
  return result;
}

/** The failures that are the model's own finished answer: kept with its finish reason (and retried by no one). */
function answered(failure: Failure): boolean {
  return failure.code === 'invalid_output' || failure.code === 'refused' || failure.code === 'empty';
}

/**
 * A finished stream that is still no answer: the model or the provider's filter refused
 * (`content-filter`: Anthropic's `refusal`, OpenAI's refusal or `content_filter`, Gemini's `SAFETY`,
 * a blocked prompt), or nothing was said (a tool call alone says nothing). Neither is worth asking again.
 */
function outcomeOf(attempt: Attempt): Failure | undefined {
  const finish = attempt.finish!;
  if (finish.reason === 'content-filter') {
    const words = finish.refusal ? `: ${finish.refusal}` : '';
    return { code: 'refused', message: clip(`The model declined to answer${words}`), retryable: false };
  }
  if (attempt.text.trim() === '') {
    const tool = finish.toolCall ?? attempt.toolCall;
    if (tool !== undefined)
      return {
        code: 'empty',
        message: clip(`The model asked to call a tool (${tool}), none being offered, instead of answering`),
        retryable: false,
      };
    return { code: 'empty', message: `The model finished (${finish.reason}) without any answer text`, retryable: false };
  }
  return undefined;
}

function clip(text: string): string {
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

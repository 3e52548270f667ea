import { type LanguageModelUsage, type ModelMessage, NoObjectGeneratedError, Output, streamText } from 'ai';
import type { z } from 'zod';
import type { AnswerError, FinishReason, Usage } from '../../../sdk/src/generated/types.gen.js';
import { classifyError, type Failure } from './errors.js';
import type { SlotModel } from './models.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelayMs } from './retry.js';
import { sleep as defaultSleep } from './sleep.js';

const MAX_TIMER_MS = 2_147_483_647;

/** Either a single user prompt or a whole conversation. */
export type AnswerInput = { prompt: string; messages?: never } | { messages: ModelMessage[]; prompt?: never };

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
  /** Asks for JSON matching this schema (`Output.object`) and returns it parsed as `object`. */
  output?: z.ZodType<T>;
  maxOutputTokens?: number;
  temperature?: number;
  retryPolicy?: RetryPolicy;
  /** How to wait between attempts; tests pass one that records the wait and returns at once. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
};

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

/**
 * One `Output.object` per schema: it is stateless, and building it converts the zod schema to JSON
 * Schema again (~0.4 ms), on the critical path of every structured call of a round.
 */
const outputs = new WeakMap<z.ZodType<unknown>, ReturnType<typeof Output.object>>();

function outputFor<T>(schema: z.ZodType<T>): ReturnType<typeof Output.object<T>> {
  let output = outputs.get(schema as z.ZodType<unknown>);
  if (!output) {
    output = Output.object({ schema: schema as z.ZodType<unknown> });
    outputs.set(schema as z.ZodType<unknown>, output);
  }
  return output as unknown as ReturnType<typeof Output.object<T>>;
}

/** What one `streamText` call ended with. */
interface Attempt {
  text: string;
  deltas: number;
  finish?: { reason: FinishReason; usage: Usage };
  /** An `error` part or a throw from the stream: the first one, which caused the rest. */
  failure?: unknown;
  aborted: boolean;
  object?: unknown;
  invalid?: NoObjectGeneratedError;
}

/**
 * One model call, streamed, with retries, a deadline and cancellation. It never throws for
 * provider failures: each ends as an `error` with a contract code. Retries cover failures before
 * the first delta (429, 5xx, 408/409, network), honouring Retry-After; once text has reached
 * `onDelta` a failure is final, since a retry would repeat deltas the caller already has.
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

  const finish = (attempt: Attempt, attempts: number, failure?: Failure): AnswerResult<T> => {
    const result: AnswerResult<T> = {
      text: attempt.text,
      usage: attempt.finish?.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
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
    for (let attempts = 1; ; attempts++) {
      const attempt = await runAttempt(options, controller.signal);
      const failure = failureOf(attempt, stopped);
      if (failure === undefined || failure.code === 'invalid_output') return finish(attempt, attempts, failure);
      const delay = retryDelayMs(attempt.failure, attempts, policy);
      if (!failure.retryable || attempt.deltas > 0 || attempts > maxRetries || delay === undefined || stopped()) {
        return finish(attempt, attempts, failure);
      }
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

async function runAttempt<T>(options: StreamAnswerOptions<T>, signal: AbortSignal): Promise<Attempt> {
  const result = streamText({
    model: options.model.languageModel,
    ...(options.system !== undefined && { system: options.system }),
    ...(options.messages !== undefined ? { messages: options.messages } : { prompt: options.prompt }),
    ...(options.output !== undefined && { output: outputFor(options.output) }),
    ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
    ...(options.temperature !== undefined && { temperature: options.temperature }),
    abortSignal: signal,
    // Our loop retries, so it can count attempts, cap waits and refuse to retry after deltas.
    maxRetries: 0,
    // Failures are read from the stream below; the default handler would log them to stderr.
    onError: () => {},
  });
  const attempt: Attempt = { text: '', deltas: 0, aborted: false };
  let callbackError: { error: unknown } | undefined;
  try {
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        attempt.text += part.text;
        attempt.deltas++;
        try {
          options.onDelta?.(part.text);
        } catch (error) {
          callbackError = { error };
          throw error;
        }
      } else if (part.type === 'error') attempt.failure ??= part.error;
      else if (part.type === 'abort') attempt.aborted = true;
      else if (part.type === 'finish')
        attempt.finish = { reason: finishReason(part.finishReason), usage: usage(part.totalUsage) };
    }
  } catch (error) {
    // A body cut mid-stream throws from the iterator (APICallError, status 200) instead of an error part.
    if (callbackError) throw callbackError.error;
    attempt.failure ??= error;
  }
  if (options.output !== undefined && attempt.finish && attempt.failure === undefined && !attempt.aborted) {
    try {
      attempt.object = await result.output;
    } catch (error) {
      if (NoObjectGeneratedError.isInstance(error)) attempt.invalid = error;
      else attempt.failure = error;
    }
  }
  return attempt;
}

/** Why an attempt produced no answer, or `undefined` when it did. */
function failureOf(attempt: Attempt, stopped: () => Failure | undefined): Failure | undefined {
  const completed = attempt.finish !== undefined && attempt.failure === undefined && !attempt.aborted;
  if (completed && attempt.finish!.reason !== 'error') {
    if (!attempt.invalid) return undefined;
    // The repair prompt needs to know what was wrong: "could not parse" or the schema's complaint.
    const cause = attempt.invalid.cause instanceof Error ? `: ${attempt.invalid.cause.message}` : '';
    return { code: 'invalid_output', message: `${attempt.invalid.message}${cause}`, retryable: true };
  }
  const halted = stopped();
  if (halted) return halted;
  if (attempt.failure !== undefined) return classifyError(attempt.failure);
  return completed
    ? { code: 'upstream_error', message: 'The provider finished the answer with an error', retryable: true }
    : { code: 'upstream_error', message: 'The stream ended without a finish event', retryable: true };
}

/**
 * The model's own reason when it finished (kept for invalid_output: `length` explains cut-off JSON),
 * `aborted` when the caller cancelled, `error` for every other failure.
 */
function finishReasonOf(attempt: Attempt, failure: Failure | undefined): FinishReason {
  if (failure === undefined || failure.code === 'invalid_output') return attempt.finish?.reason ?? 'other';
  return failure.code === 'aborted' ? 'aborted' : 'error';
}

function finishReason(reason: string): FinishReason {
  return reason === 'stop' || reason === 'length' || reason === 'content-filter' || reason === 'error' ? reason : 'other';
}

function usage(u: LanguageModelUsage): Usage {
  const inputTokens = u.inputTokens ?? 0;
  const outputTokens = u.outputTokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: u.totalTokens ?? inputTokens + outputTokens };
}

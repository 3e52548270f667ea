/**
 * The five debate operations over HTTP. A client that goes away cancels its run: the request's
 * signal (or the SSE stream's abort) stops every model call in flight. A run started with `detach`
 * (any mode) is the exception: it runs on, recorded, until it ends or its session is deleted, so a
 * page that reloads can resume it from the session's events. The JSON operations then answer at once,
 * `202 Accepted` with the session's id, rather than when the run ends: the id is all a detached client
 * needs, and the event stream is how it watches.
 */
import type { Context } from 'hono';
import type { DebateEvent, Session, SynthesisAnswer } from '../../../sdk/src/generated/types.gen.js';
import { strategyProblems } from '../debate/adaptive.js';
import type { RunOptions } from '../debate/engine.js';
import { type EventLog, sseMessage } from '../debate/events.js';
import { type PanelRequest, panelProblems } from '../debate/panel.js';
import type { Handlers } from '../generated/routes.js';
import { STORE_UNAVAILABLE } from '../sessions/recorder.js';
import { ALL_OWNERS } from '../sessions/sessions.js';
import type { AppEnv, DebateDeps } from './deps.js';
import { eventStream, WriteBatcher } from './event-stream.js';
import { scopeOf } from './owner.js';
import { problem } from './problem.js';

/** How often an idle event stream gets a comment line, so proxies keep it open. */
const HEARTBEAT_MS = 15_000;

type DebateOperations =
  | 'askProvider'
  | 'runParallel'
  | 'runDeepDebate'
  | 'streamDeepDebate'
  | 'synthesizeVerdict'
  | 'askFollowUp'
  | 'continueSession';

export function debateHandlers({
  engine,
  sessions,
  ownerOf,
  heartbeatMs = HEARTBEAT_MS,
  wikis,
}: DebateDeps): Pick<Handlers<AppEnv>, DebateOperations> {
  /**
   * Run options that record the session as it goes, owned by the caller and stopped by a delete of
   * the session or by the client going away: the request's end, or `clientGone` (an event stream's
   * own abort). `onLog` hears of the log once the recorder has it. Detached, only a delete stops the
   * run: the connection's end is not a cancel.
   */
  const recorded = (
    c: Context,
    { clientGone, onLog, detach = false }: { clientGone?: AbortSignal; onLog?: (log: EventLog) => void; detach?: boolean } = {},
  ): Required<Pick<RunOptions, 'signal' | 'onLog' | 'owner'>> => {
    const cancel = new AbortController();
    const record = sessions.recorder.hook(cancel);
    const client = detach ? [] : [c.req.raw.signal, ...(clientGone ? [clientGone] : [])];
    return {
      owner: ownerOf(c),
      signal: AbortSignal.any([cancel.signal, ...client]),
      onLog: (log, snapshot) => {
        record(log, snapshot);
        onLog?.(log);
      },
    };
  };
  /** A 400 for a panel the configuration cannot give (fewer than two slots, a model off a slot's list); undefined when it can. */
  const panelRefused = (c: Context, body: PanelRequest & { strategy?: string; agreement?: number }): Response | undefined => {
    const errors = [...panelProblems(engine.settings.panel, body), ...strategyProblems(body)];
    if (errors.length === 0) return undefined;
    return problem(c, 400, 'validation_failed', { detail: errors.map((e) => e.message).join(' '), errors });
  };
  /** The run's result once all of it is stored, so a read right after the response finds it (or how it failed, if the store stayed down). */
  const stored = async (session: Session) => (await sessions.recorder.live(session.id)?.done) ?? session;
  /** A detached run outlives its response: it holds a running slot until it settles (see debate-limits). */
  const held = <T>(c: Context, detach: boolean | undefined, run: Promise<T>): Promise<T> => {
    if (detach) c.set('detachedRun', run);
    return run;
  };
  /**
   * Starts a detached run and answers `202` once its session's first write has committed, so a GET or
   * its events right after find it. If that write fails, the run is stopped and dropped (no model calls
   * go on for a session nobody can read) and the store's error fails the request (503 when the store is
   * down). `start` gets the run options to use; a run that fails before its session exists fails the
   * request as it would have attached.
   */
  const accepted = async (c: Context, start: (options: ReturnType<typeof recorded>) => Promise<Session>): Promise<Response> => {
    let written!: (id: string) => void;
    let refused!: (error: unknown) => void;
    const running = new Promise<string>((resolve, reject) => {
      written = resolve;
      refused = reject;
    });
    // The run may name itself by its result first; a later failure is then nobody's to hear.
    running.catch(() => undefined);
    const options = recorded(c, { detach: true });
    const run = start({
      ...options,
      onLog: (log, snapshot) => {
        options.onLog(log, snapshot);
        // The recorder heard the first event before this listener and began writing it: wait for that write.
        const stop = log.subscribe(() => {
          stop();
          const live = sessions.recorder.live(log.sessionId);
          if (!live) return written(log.sessionId);
          live.firstWrite.then(
            () => written(log.sessionId),
            (error: unknown) => {
              const why = error instanceof Error ? error.message : String(error);
              live.discard(new Error(`${STORE_UNAVAILABLE}: the session's first write failed (${why}); the run was stopped`));
              refused(error);
            },
          );
        });
      },
    });
    held(c, true, run).catch(() => undefined);
    // A run that ended before its first write was acknowledged (or raised nothing) is still named by its result.
    const sessionId = await Promise.race([running, run.then((session) => session.id)]);
    c.header('Location', `/sessions/${sessionId}`);
    return c.json({ sessionId, status: 'running' as const }, 202);
  };

  /** The debate's grounding in the source it names; a problem for a source not configured. */
  const groundingOf = (c: Context, body: { grounding?: { source: string } }) => {
    if (!body.grounding) return {};
    const grounding = wikis?.grounding(body.grounding.source);
    if (grounding) return { grounding };
    const known = wikis?.names.join(', ') || 'none';
    return {
      refused: problem(c, 400, 'unknown_wiki_source', {
        detail: `No wiki source is named "${body.grounding.source}"; configured: ${known}.`,
      }),
    };
  };

  /** A continued session keeps its grounding: the same sources, its citations counted on. */
  const resumed = (session: Session) => (session.grounding && wikis ? { grounding: wikis.resume(session.grounding) } : {});

  return {
    askProvider: async (c) => {
      const { provider } = c.req.valid('param');
      const body = c.req.valid('json');
      const slot = engine.slotByProvider(provider);
      if (!slot) {
        const known = engine.slots.map((s) => s.provider).join(', ');
        return problem(c, 404, 'unknown_provider', { detail: `No slot is configured for "${provider}"; configured: ${known}.` });
      }
      const { grounding, refused: unknownSource } = groundingOf(c, body);
      if (unknownSource) return unknownSource;
      const limits = {
        ...(body.maxOutputTokens !== undefined && { maxOutputTokens: body.maxOutputTokens }),
        ...(grounding && { grounding }),
        ...(body.tags && { tags: body.tags }),
      };
      if (body.detach)
        return accepted(c, async (options) => stored(await engine.ask(slot, body.question, { ...options, ...limits })));
      const session = await stored(await engine.ask(slot, body.question, { ...recorded(c), ...limits }));
      const answer = session.rounds[0]?.answers[0];
      if (!answer || answer.error) {
        const why = answer?.error ? `${answer.error.code}: ${answer.error.message}` : 'no answer';
        return problem(c, 502, 'provider_failed', {
          detail: `Slot ${slot.config.slot} (${provider}) failed (${why}). Session ${session.id}.`,
        });
      }
      return c.json({ sessionId: session.id, answer, ...(session.grounding && { grounding: session.grounding }) }, 200);
    },

    runParallel: async (c) => {
      const body = c.req.valid('json');
      const { grounding, refused: unknownSource } = groundingOf(c, body);
      if (unknownSource) return unknownSource;
      const limits = {
        ...(body.maxOutputTokens !== undefined && { maxOutputTokens: body.maxOutputTokens }),
        ...(grounding && { grounding }),
        ...(body.tags && { tags: body.tags }),
      };
      if (body.detach) {
        return accepted(c, async (options) =>
          stored(await engine.parallel(body.question, body.slots, { ...options, ...limits })),
        );
      }
      const session = await stored(await engine.parallel(body.question, body.slots, { ...recorded(c), ...limits }));
      return c.json(
        {
          sessionId: session.id,
          status: session.status,
          answers: session.rounds[0]?.answers ?? [],
          missingSlots: session.missingSlots,
          usage: session.usage,
          cost: session.cost,
          ...(session.grounding && { grounding: session.grounding }),
        },
        200,
      );
    },

    runDeepDebate: async (c) => {
      const body = c.req.valid('json');
      const refused = panelRefused(c, body);
      if (refused) return refused;
      const { grounding, refused: unknownSource } = groundingOf(c, body);
      if (unknownSource) return unknownSource;
      const deep = { ...deepOptions(body), ...(grounding && { grounding }) };
      if (body.detach) return accepted(c, async (options) => stored(await engine.deep(body.question, { ...deep, ...options })));
      return c.json(await stored(await engine.deep(body.question, { ...deep, ...recorded(c) })), 200);
    },

    streamDeepDebate: (c) => {
      const body = c.req.valid('json');
      const refused = panelRefused(c, body);
      if (refused) return refused;
      const { grounding, refused: unknownSource } = groundingOf(c, body);
      if (unknownSource) return unknownSource;
      const detach = body.detach === true;
      // The run outlives a detached stream: whoever counts running debates waits for this, not the response.
      let ended!: () => void;
      if (detach) c.set('detachedRun', new Promise<void>((resolve) => (ended = resolve)));
      return eventStream(c, async (stream) => {
        const cancel = new AbortController();
        // Once the client is gone nothing more is written to it; detached, the run goes on regardless.
        let gone = false;
        const leave = () => {
          gone = true;
          cancel.abort();
        };
        stream.onAbort(leave);
        // Events go out as they happen, gathered into few writes (see WriteBatcher): each write
        // reaches the socket, which costs more than the event itself.
        const batcher = new WriteBatcher((text) => {
          if (!gone) stream.write(text);
        });
        stream.onAbort(() => batcher.stop());
        const send = (event: DebateEvent) =>
          batcher.queue(sseMessage(event), event.type === 'answer.delta' || event.type === 'verdict.delta');
        const heartbeat = setInterval(() => batcher.queue(': heartbeat\n\n'), heartbeatMs);
        try {
          await stored(
            await engine.deep(body.question, {
              ...deepOptions(body),
              ...(grounding && { grounding }),
              // What the client sees is what is stored: nothing but deltas before it is committed.
              ...recorded(c, {
                clientGone: cancel.signal,
                onLog: (log) => sessions.recorder.live(log.sessionId)?.subscribe(send),
                detach,
              }),
            }),
          );
          batcher.flush();
        } finally {
          clearInterval(heartbeat);
          ended?.();
        }
      });
    },

    synthesizeVerdict: async (c) => {
      const body = c.req.valid('json');
      const hasSession = body.sessionId !== undefined;
      const hasAnswers = body.question !== undefined || body.answers !== undefined;
      if (hasSession === hasAnswers || (!hasSession && (body.question === undefined || body.answers === undefined))) {
        return problem(c, 400, 'validation_failed', {
          detail: 'Give either `sessionId`, or `question` with `answers`; not both.',
          errors: [
            {
              path: 'body',
              message: hasSession
                ? 'sessionId excludes question and answers'
                : 'question and answers are both required without sessionId',
            },
          ],
        });
      }
      let question: string;
      let answers: SynthesisAnswer[];
      if (body.sessionId !== undefined) {
        const source = await sessions.get(body.sessionId, scopeOf(c));
        if (!source) return problem(c, 404, 'not_found', { detail: `No session "${body.sessionId}".` });
        question = source.question;
        answers = source.rounds.flatMap((r) =>
          r.answers.filter((a) => !a.error && a.text).map((a) => ({ slot: a.slot, round: a.round, text: a.text })),
        );
        if (answers.length === 0)
          return problem(c, 404, 'not_found', { detail: `Session "${body.sessionId}" has no answers to synthesize.` });
      } else {
        question = body.question!;
        answers = body.answers!;
      }
      const session = await stored(
        await engine.synthesizeAnswers(question, answers, {
          ...recorded(c),
          ...(body.sessionId !== undefined && { sourceSessionId: body.sessionId }),
        }),
      );
      if (!session.verdict) {
        return problem(c, 502, 'provider_failed', { detail: `No slot could write the verdict. Session ${session.id}.` });
      }
      return c.json({ sessionId: session.id, verdict: session.verdict, usage: session.usage, cost: session.cost }, 200);
    },

    askFollowUp: async (c) => {
      const { sessionId } = c.req.valid('param');
      const body = c.req.valid('json');
      const parent = await sessions.get(sessionId, ownerOf(c));
      if (!parent) {
        // An admin may read the session but not add to another user's thread (its listing would show them the admin's question).
        if (scopeOf(c) === ALL_OWNERS && (await sessions.get(sessionId, ALL_OWNERS))) {
          return problem(c, 403, 'forbidden', {
            detail: `Session "${sessionId}" is another user's: a follow-up continues your own thread only. Ask a new question, or synthesize it (POST /synthesize with its sessionId).`,
          });
        }
        return problem(c, 404, 'not_found', { detail: `No session "${sessionId}".` });
      }
      if (parent.status === 'running') {
        return problem(c, 409, 'conflict', {
          detail: `Session ${sessionId} is still running; ask a follow-up once it has finished.`,
        });
      }
      const mode = body.mode ?? (parent.mode === 'synthesis' ? 'deep' : parent.mode);
      const misplaced = fieldsOutsideMode(body, mode);
      if (misplaced.length > 0) {
        return problem(c, 400, 'validation_failed', {
          detail: `${misplaced.map((f) => `\`${f}\``).join(', ')} ${misplaced.length === 1 ? 'does' : 'do'} not apply to a ${mode} follow-up.`,
          errors: misplaced.map((field) => ({
            path: `body.${field}`,
            message: `"${field}" is for a ${MODE_OF_FIELD[field]} follow-up; this one is ${mode}${body.mode ? '' : ' (the session’s mode)'}.`,
            code: 'unrecognized_keys',
          })),
        });
      }
      // A deep follow-up debates on its parent's panel unless told otherwise, field by field.
      const inherited = mode === 'deep' ? inheritPanel(parent, body) : body;
      const refused = mode === 'deep' ? panelRefused(c, inherited) : undefined;
      if (refused) return refused;
      // A single follow-up asks the same slot as before unless told otherwise.
      const provider = body.provider ?? (parent.mode === 'single' ? parent.rounds[0]?.answers[0]?.provider : undefined);
      const slot = provider !== undefined ? engine.slotByProvider(provider) : engine.settings.panel[0];
      if (mode === 'single' && !slot) {
        return problem(c, 404, 'unknown_provider', { detail: `No slot is configured for "${provider}".` });
      }
      const thread = await sessions.followUp(parent);
      const run = async (recording: ReturnType<typeof recorded>) => {
        const options = { ...recording, thread };
        return stored(
          mode === 'single'
            ? await engine.ask(slot!, body.question, options)
            : mode === 'parallel'
              ? await engine.parallel(body.question, body.slots, options)
              : await engine.deep(body.question, { ...deepOptions(inherited), ...options }),
        );
      };
      if (body.detach) return accepted(c, run);
      return c.json(await run(recorded(c)), 200);
    },

    continueSession: async (c) => {
      const { sessionId } = c.req.valid('param');
      // The body is optional: no body is `{}`.
      const body = (c.req.valid('json') as { detach?: boolean } | undefined) ?? {};
      const continuation = await sessions.continue(sessionId, ownerOf(c));
      if (!continuation) return problem(c, 404, 'not_found', { detail: `No session "${sessionId}".` });
      if ('refused' in continuation) return problem(c, 409, 'conflict', { detail: continuation.refused });
      const run = async (recording: ReturnType<typeof recorded>) =>
        stored(
          await engine.continue(continuation.stored, {
            ...recording,
            ...continuation.options,
            ...resumed(continuation.stored.session),
          }),
        );
      if (body.detach) return accepted(c, run);
      return c.json(await run(recorded(c)), 200);
    },
  };
}

/** The follow-up fields that belong to one mode; as `POST /ask`, `/consilium` and `/consilium/deep` refuse each other's. */
const MODE_OF_FIELD = {
  provider: 'single',
  slots: 'parallel or deep',
  rounds: 'deep',
  quorum: 'deep',
  earlyStop: 'deep',
  synthesizer: 'deep',
  anonymous: 'deep',
  ranking: 'deep',
  models: 'deep',
} as const satisfies Record<string, 'single' | 'parallel or deep' | 'deep'>;

/** The fields of `body` that another mode than `mode` takes, in the order above. */
function fieldsOutsideMode(body: Record<string, unknown>, mode: string): (keyof typeof MODE_OF_FIELD)[] {
  return (Object.keys(MODE_OF_FIELD) as (keyof typeof MODE_OF_FIELD)[]).filter(
    (field) => body[field] !== undefined && !MODE_OF_FIELD[field].split(' or ').includes(mode),
  );
}

/** A deep follow-up's panel: each field the request leaves out is the parent's (a deep parent's recorded choice). */
function inheritPanel<T extends PanelRequest>(parent: Session, body: T): T {
  const from = parent.mode === 'deep' ? parent.panel : undefined;
  if (!from) return body;
  return {
    ...body,
    ...(body.slots === undefined && { slots: from.slots }),
    ...(body.synthesizer === undefined && from.synthesizer !== undefined && { synthesizer: from.synthesizer }),
    ...(body.anonymous === undefined && { anonymous: from.anonymous }),
    ...(body.ranking === undefined && { ranking: from.ranking }),
    ...(body.models === undefined && from.models && { models: from.models }),
  };
}

function deepOptions(
  body: PanelRequest & {
    rounds?: number;
    quorum?: number;
    budget?: { maxTokens?: number; maxCostUsd?: number };
    earlyStop?: boolean;
    detach?: boolean;
    strategy?: 'debate' | 'adaptive';
    agreement?: number;
    tags?: string[];
  },
) {
  const panel: PanelRequest = {
    ...(body.slots !== undefined && { slots: body.slots }),
    ...(body.synthesizer !== undefined && { synthesizer: body.synthesizer }),
    ...(body.anonymous !== undefined && { anonymous: body.anonymous }),
    ...(body.ranking !== undefined && { ranking: body.ranking }),
    ...(body.models !== undefined && { models: body.models }),
  };
  return {
    ...(body.earlyStop !== undefined && { earlyStop: body.earlyStop }),
    ...(body.rounds !== undefined && { rounds: body.rounds }),
    ...(body.quorum !== undefined && { quorum: body.quorum }),
    ...(body.budget !== undefined && { budget: body.budget }),
    ...(body.strategy !== undefined && { strategy: body.strategy }),
    ...(body.agreement !== undefined && { agreement: body.agreement }),
    ...(body.tags !== undefined && { tags: body.tags }),
    panel,
  };
}

/**
 * The runs a caller can start, each checked against the configuration and the stored sessions before any
 * model is called: a refusal is a `RunRefused` (nothing started, nothing stored); a start is a `StartedRun`.
 */
import type { SynthesisAnswer } from '../../../sdk/src/generated/types.gen.js';
import { strategyProblems } from '../debate/adaptive.js';
import type { DebateEngine } from '../debate/engine.js';
import { panelProblems } from '../debate/panel.js';
import type { WikiSources } from '../grounding/sources.js';
import { ALL_OWNERS, answersOf, type OwnerScope, type Sessions } from '../sessions/sessions.js';
import { type DeepRequest, deepOptions } from './deep-options.js';
import { type FollowUpRequest, followUpMode, inheritPanel, inheritStrategy, refuseOtherModesFields } from './follow-up.js';
import { groundingOf, resumedGrounding } from './grounding.js';
import { RunRefused } from './refused.js';
import { type StartedRun, type StartOptions, startRun } from './start.js';

export interface RunsOptions {
  engine: DebateEngine;
  sessions: Sessions;
  /** The wiki sources a run may be grounded in. */
  wikis?: WikiSources | undefined;
}

interface Grounded {
  grounding?: { source: string };
}

interface Limited extends Grounded {
  question: string;
  maxOutputTokens?: number;
  tags?: string[];
}

/** Who asks, and how the run is attached to them (see `StartOptions`). */
export type Caller = StartOptions;

export class Runs {
  readonly engine: DebateEngine;
  readonly sessions: Sessions;
  readonly wikis: WikiSources | undefined;

  constructor({ engine, sessions, wikis }: RunsOptions) {
    this.engine = engine;
    this.sessions = sessions;
    this.wikis = wikis;
  }

  /** One model: the slot whose provider is `provider`. */
  ask(provider: string, request: Limited, caller: Caller): StartedRun {
    const slot = this.#slot(provider);
    const options = this.#limits(request);
    return this.#start(caller, (recorded) => this.engine.ask(slot, request.question, { ...options, ...recorded }));
  }

  /** The asked slots (every one by default) at once, no debate. */
  parallel(request: Limited & { slots?: readonly number[] }, caller: Caller): StartedRun {
    const options = this.#limits(request);
    const slots = request.slots as Parameters<DebateEngine['parallel']>[1];
    return this.#start(caller, (recorded) => this.engine.parallel(request.question, slots, { ...options, ...recorded }));
  }

  /** A deep debate on the panel the request chooses. */
  deep(request: DeepRequest & Grounded & { question: string }, caller: Caller): StartedRun {
    this.#refusePanel(request);
    const deep = { ...deepOptions(request), ...groundingOf(this.wikis, request) };
    return this.#start(caller, (recorded) => this.engine.deep(request.question, { ...deep, ...recorded }));
  }

  /** A verdict from a stored session's answers, or from the answers given. */
  async synthesize(
    request: { sessionId?: string; question?: string; answers?: SynthesisAnswer[] },
    caller: Caller & { scope: OwnerScope },
  ): Promise<StartedRun> {
    const { question, answers } = await this.#synthesisInput(request, caller.scope);
    const from = request.sessionId !== undefined ? { sourceSessionId: request.sessionId } : {};
    return this.#start(caller, (recorded) => this.engine.synthesizeAnswers(question, answers, { ...from, ...recorded }));
  }

  /** A follow-up to the caller's finished session `parentId`, in its thread. */
  async followUp(parentId: string, request: FollowUpRequest, caller: Caller & { scope: OwnerScope }): Promise<StartedRun> {
    const parent = await this.sessions.get(parentId, caller.owner);
    if (!parent) {
      // An admin may read the session but not add to another user's thread (its listing would show them the admin's question).
      if (caller.scope === ALL_OWNERS && (await this.sessions.get(parentId, ALL_OWNERS))) {
        throw new RunRefused(
          'forbidden',
          `Session "${parentId}" is another user's: a follow-up continues your own thread only. Ask a new question, or synthesize it (POST /synthesize with its sessionId).`,
        );
      }
      throw new RunRefused('not_found', `No session "${parentId}".`);
    }
    if (parent.status === 'running') {
      throw new RunRefused('conflict', `Session ${parentId} is still running; ask a follow-up once it has finished.`);
    }
    const mode = followUpMode(parent, request);
    refuseOtherModesFields(request, mode);
    // A deep follow-up debates on its parent's panel, by its parent's strategy, unless told otherwise, field by field.
    const inherited = mode === 'deep' ? inheritStrategy(parent, inheritPanel(parent, request)) : request;
    if (mode === 'deep') this.#refusePanel(inherited);
    // A single follow-up asks the same slot as before unless told otherwise.
    const provider = request.provider ?? (parent.mode === 'single' ? parent.rounds[0]?.answers[0]?.provider : undefined);
    const slot = provider !== undefined ? this.engine.slotByProvider(provider) : this.engine.settings.panel[0];
    if (mode === 'single' && !slot) throw new RunRefused('unknown_provider', `No slot is configured for "${provider}".`);
    const thread = await this.sessions.followUp(parent);
    const { question } = request;
    return this.#start(caller, (recorded) => {
      // Tags go with every mode (an OpenAI conversation finds its next turn's parent by one).
      const options = { ...recorded, thread, ...(request.tags && { tags: request.tags }) };
      if (mode === 'single') return this.engine.ask(slot!, question, options);
      if (mode === 'parallel')
        return this.engine.parallel(question, request.slots as Parameters<DebateEngine['parallel']>[1], options);
      return this.engine.deep(question, { ...deepOptions(inherited), ...options });
    });
  }

  /**
   * Continues the interrupted session `id` of `owner`, in the same session. `refused` (`conflict`) when it is not
   * interrupted, or another caller took it first.
   */
  async continue(id: string, caller: Caller): Promise<StartedRun> {
    const continuation = await this.sessions.continue(id, caller.owner);
    if (!continuation) throw new RunRefused('not_found', `No session "${id}".`);
    if ('refused' in continuation) throw new RunRefused('conflict', continuation.refused);
    const { stored, options } = continuation;
    const grounding = resumedGrounding(this.wikis, stored.session);
    return this.#start(caller, (recorded) => this.engine.continue(stored, { ...recorded, ...options, ...grounding }));
  }

  #start(caller: Caller, plan: Parameters<typeof startRun>[1]): StartedRun {
    return startRun(this.sessions.recorder, plan, caller);
  }

  #slot(provider: string) {
    const slot = this.engine.slotByProvider(provider);
    if (slot) return slot;
    const known = this.engine.slots.map((s) => s.provider).join(', ');
    throw new RunRefused('unknown_provider', `No slot is configured for "${provider}"; configured: ${known}.`);
  }

  #limits(request: Limited) {
    return {
      ...(request.maxOutputTokens !== undefined && { maxOutputTokens: request.maxOutputTokens }),
      ...(request.tags && { tags: request.tags }),
      ...groundingOf(this.wikis, request),
    };
  }

  /**
   * Throws `validation_failed` for a panel the configuration cannot give (fewer than two slots, a model off a slot's
   * list), or an `agreement` without the adaptive strategy.
   */
  #refusePanel(request: DeepRequest): void {
    const errors = [...panelProblems(this.engine.settings.panel, request), ...strategyProblems(request)];
    if (errors.length > 0) throw new RunRefused('validation_failed', errors.map((e) => e.message).join(' '), errors);
  }

  async #synthesisInput(
    request: { sessionId?: string; question?: string; answers?: SynthesisAnswer[] },
    scope: OwnerScope,
  ): Promise<{ question: string; answers: SynthesisAnswer[] }> {
    const hasSession = request.sessionId !== undefined;
    const hasAnswers = request.question !== undefined || request.answers !== undefined;
    if (hasSession === hasAnswers || (!hasSession && (request.question === undefined || request.answers === undefined))) {
      throw new RunRefused('validation_failed', 'Give either `sessionId`, or `question` with `answers`; not both.', [
        {
          path: 'body',
          message: hasSession
            ? 'sessionId excludes question and answers'
            : 'question and answers are both required without sessionId',
        },
      ]);
    }
    if (request.sessionId === undefined) return { question: request.question!, answers: request.answers! };
    const source = await this.sessions.get(request.sessionId, scope);
    if (!source) throw new RunRefused('not_found', `No session "${request.sessionId}".`);
    const answers = answersOf(source);
    if (answers.length === 0) throw new RunRefused('not_found', `Session "${request.sessionId}" has no answers to synthesize.`);
    return { question: source.question, answers };
  }
}

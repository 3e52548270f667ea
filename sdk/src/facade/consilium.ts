/**
 * `Consilium`: a thin handwritten facade over the generated operations. It returns data or throws a
 * {@link ConsiliumError}, streams as async iterators, pages as async iterators, and resumes a dropped
 * session stream by `Last-Event-ID`. The generated functions stay exported for everything else.
 */
import { type ConsiliumClientOptions, createConsiliumClient } from '../client.js';
import { ConsiliumError, errorFromProblem, errorFromResponse, toConsiliumError } from '../errors.js';
import type { Client } from '../generated/client/index.js';
import {
  askFollowUp,
  askProvider,
  cancelSession,
  continueSession,
  createApiToken,
  deleteSession,
  estimateRun,
  exportSessionJson,
  exportSessionMarkdown,
  getCurrentUser,
  getHealth,
  getSession,
  getTrackRecord,
  listApiTokens,
  listProviders,
  listSessionShares,
  listSessions,
  login,
  logout,
  revokeApiToken,
  runDeepDebate,
  runParallel,
  shareSession,
  streamDeepDebate,
  streamSessionEvents,
  synthesizeVerdict,
  unshareSession,
  updateSession,
} from '../generated/sdk.gen.js';
import type {
  ApiToken,
  ApiTokenCreated,
  AskResult,
  Budget,
  DebateAccepted,
  DebateEvent,
  Estimate,
  EstimateRequest,
  GroundingRequest,
  Health,
  PanelModel,
  ParallelResult,
  ProviderCatalogue,
  Session,
  SessionMode,
  SessionPage,
  SessionStatus,
  SessionSummary,
  Share,
  Strategy,
  SynthesisResult,
  SynthesizeRequest,
  TrackRecord,
  User,
} from '../generated/types.gen.js';

export interface ConsiliumOptions extends ConsiliumClientOptions {
  /**
   * Told of every `ConsiliumError` a call or stream fails with, before it is thrown: one place to react to a
   * 401 (show a sign-in form) whichever call met it.
   */
  onError?: (error: ConsiliumError) => void;
}

export interface DebateOptions extends DetachOption, PanelOptions {
  /** Rounds to debate (2–5); the server's default (3) otherwise. */
  rounds?: number;
  /** Slots that must answer for a round to proceed. */
  quorum?: number;
  budget?: Budget;
  /** Stop before the last round once every model keeps its position. */
  earlyStop?: boolean;
  /** Ground the debate in a wiki source the server configures (`providers.list()`'s `wikis`): `{ source: 'team-wiki' }`. */
  grounding?: GroundingRequest;
  /**
   * `adaptive`: round 1 runs, and when its independent answers agree (the share holding one position reaches
   * `agreement`, 1 unless given) the session ends there with their vote as its verdict; otherwise it debates on.
   */
  strategy?: Strategy;
  agreement?: number;
  /** Labels kept with the session; `eval` keeps it out of `sessions.list()` unless asked for with `tag: 'eval'`. */
  tags?: string[];
  /** Aborting cancels the debate on the server and every model call it has in flight. */
  signal?: AbortSignal;
}

/** A run to estimate (`debates.estimate`): its mode (`deep` by default) and the options it would be run with. */
export type EstimateOptions = Omit<EstimateRequest, 'question'> & { signal?: AbortSignal };

/** How a deep debate's panel is chosen; the server's defaults (all slots, slot 1 synthesizes, anonymous, no ranking) otherwise. */
export interface PanelOptions {
  /** The slots that debate (at least two). For a `parallel` follow-up, the slots to ask. */
  slots?: number[];
  /** The slot that writes the verdict, in the panel or not. */
  synthesizer?: number;
  /** Peers quoted as "Response A, B…" in a shuffled order (the default), or by slot when false. */
  anonymous?: boolean;
  /** Each model ranks the others' first answers; the session's `rankings` holds the Borda count. */
  ranking?: boolean;
  /** Per-slot models from each slot's operator-allowed list (`providers()` shows them as `models`). */
  models?: PanelModel[];
}

function panelBody(options: PanelOptions) {
  const { slots, synthesizer, anonymous, ranking, models } = options;
  return {
    ...(slots !== undefined && { slots }),
    ...(synthesizer !== undefined && { synthesizer }),
    ...(anonymous !== undefined && { anonymous }),
    ...(ranking !== undefined && { ranking }),
    ...(models !== undefined && { models }),
  };
}

/**
 * `detach: true` starts the run and returns at once with its session's id (`202 Accepted`): the run
 * outlives this client, `sessions.follow(id)` streams it, `sessions.cancel(id)` stops it (keeping the
 * session; `sessions.delete(id)` stops and deletes it). Without it
 * the call returns once the run has ended, and aborting `signal` cancels the run.
 */
export interface DetachOption {
  detach?: boolean;
}
/** A call that returns `R` once the run ends, or `DebateAccepted` at once when detached. */
export interface Detachable<O extends DetachOption, R, A extends unknown[] = [question: string]> {
  (...args: [...A, options: O & { detach: true }]): Promise<DebateAccepted>;
  (...args: [...A, options?: O & { detach?: false }]): Promise<R>;
}

export interface ContinueOptions extends DetachOption {
  /** Aborting cancels the continued run (unless `detach`). */
  signal?: AbortSignal;
}

export interface FollowUpOptions extends DetachOption, Omit<PanelOptions, 'slots'> {
  /** How to ask it; the previous session's mode by default (`deep` after a synthesis). */
  mode?: 'single' | 'parallel' | 'deep';
  /** For `single`: the slot whose provider answers (resolved through `providers()`). */
  slot?: number;
  /** For `single`: the provider to ask by name; the previous session's, else slot 1's, by default. */
  provider?: string;
  /** For `parallel`: the slots to ask; all by default. For `deep`: the panel; the previous session's (as its other panel options) by default. */
  slots?: number[];
  /** For `deep`: rounds (2–5), quorum and early stop, as in a debate. */
  rounds?: number;
  quorum?: number;
  earlyStop?: boolean;
  /** For `deep`: as in a debate; the previous session's strategy (and threshold) by default. */
  strategy?: Strategy;
  agreement?: number;
  signal?: AbortSignal;
}

export interface FollowOptions {
  /** Resume after this event `seq` (what the last event you saw carried); from the start otherwise. */
  lastEventId?: number;
  signal?: AbortSignal;
  /** Reconnections in a row without a new event before giving up; 5 by default, `Infinity` to retry until `signal` aborts. */
  maxRetries?: number;
  /** First wait before reconnecting, doubled per attempt up to 5 s; 250 ms by default. */
  retryDelayMs?: number;
  /**
   * Told before each wait to reconnect: the attempt (counted from 1 again once an event arrives) and the failure
   * (`undefined` when the stream closed before the session ended).
   */
  onReconnect?: (attempt: number, failure: ConsiliumError | undefined) => void;
}

export interface AskOptions extends DetachOption {
  slot?: number;
  provider?: string;
  maxOutputTokens?: number;
  /** Labels kept with the session (see `DebateOptions.tags`). */
  tags?: string[];
  /** Ground the answer in a wiki source the server configures: the pages read come back in `grounding`. */
  grounding?: GroundingRequest;
  signal?: AbortSignal;
}

export interface ParallelOptions extends DetachOption {
  slots?: number[];
  /** Labels kept with the session (see `DebateOptions.tags`). */
  tags?: string[];
  /** Ground the answers in a wiki source the server configures: the pages read come back in `grounding`. */
  grounding?: GroundingRequest;
  signal?: AbortSignal;
}

/** What `sessions.list` may filter by (see `GET /sessions`). */
export interface ListOptions {
  /** A case-insensitive substring of the question. */
  q?: string;
  /** Full-text: every word in the question, answers or verdict (the last also as a prefix). */
  text?: string;
  limit?: number;
  /** The sessions shared with you (read-only) instead of your own. */
  shared?: boolean;
  /** Only archived sessions (otherwise only those not archived). */
  archived?: boolean;
  mode?: SessionMode;
  status?: SessionStatus;
  /** Created at or after this ISO time. */
  from?: string;
  /** Created before this ISO time. */
  to?: string;
  /** Only sessions with this tag; without it, sessions tagged `eval` are left out. */
  tag?: string;
}

/** How a session was asked, to ask it again (`sessions.rerun`). */
export type RerunSettings = { question: string; parentId?: string } & (
  | { mode: 'single'; provider: string }
  | { mode: 'parallel'; slots: number[] }
  | { mode: 'deep'; rounds: number; strategy?: 'adaptive'; agreement?: number }
  | { mode: 'synthesis'; sourceSessionId?: string }
);

/**
 * The settings a stored session was run with, as far as it records them: its mode and question, the provider
 * (single) or slots (parallel) its first round asked, the rounds asked for (deep), its thread's parent, the
 * session a synthesis was made from. Quorum, budget and output limits are not stored: a re-run uses the defaults.
 */
export function rerunSettings(session: Session): RerunSettings {
  const common = { question: session.question, ...(session.parentId !== undefined && { parentId: session.parentId }) };
  const asked = session.rounds[0]?.answers ?? [];
  switch (session.mode) {
    case 'single':
      // A session that never got its answer stored names no provider: slot 1's, as `ask` does by default.
      return { ...common, mode: 'single', provider: asked[0]?.provider ?? 'anthropic' };
    case 'parallel': {
      const slots = [...new Set([...asked.map((a) => a.slot), ...(session.rounds[0]?.missingSlots ?? [])])].sort((a, b) => a - b);
      return { ...common, mode: 'parallel', slots: slots.length > 0 ? slots : [1, 2, 3, 4, 5] };
    }
    case 'deep':
      return {
        ...common,
        mode: 'deep',
        rounds: Math.max(2, session.roundsRequested),
        // An adaptive debate runs again as one, at its threshold.
        ...(session.adaptive && { strategy: 'adaptive' as const, agreement: session.adaptive.threshold }),
      };
    case 'synthesis':
      return {
        ...common,
        mode: 'synthesis',
        ...(session.sourceSessionId !== undefined && { sourceSessionId: session.sourceSessionId }),
      };
  }
}

export interface SignInOptions extends Omit<ConsiliumOptions, 'token'> {
  username: string;
  password: string;
  /**
   * The API token's name, as listed by `tokens.list()` (`consilium-sdk` by default). It is also how a later
   * `signIn` knows the tokens it made before: give each script or machine that signs in at the same time a name of its own.
   */
  tokenName?: string;
  /** The token's lifetime; {@link SIGN_IN_TOKEN_DAYS} (7) by default, so a forgotten token ends by itself. */
  expiresInDays?: number;
  /**
   * Keep the earlier tokens named `tokenName` live. By default `signIn` revokes them once the new one exists, so a
   * script that signs in on every run leaves one live token, not one per run.
   */
  keepPrevious?: boolean;
}

/** The lifetime, in days, of the tokens `Consilium.signIn` creates unless told otherwise. */
export const SIGN_IN_TOKEN_DAYS = 7;

/** Sessions across pages: iterate it for every summary, or `pages()` for one page at a time. */
export interface SessionList extends AsyncIterable<SessionSummary> {
  pages(): AsyncIterable<SessionPage>;
}

type Result<T> = { data?: T; error?: unknown; response?: Response };

/** Data on success, else the problem (or the network failure) thrown as a `ConsiliumError`. */
async function settleCall<T>(pending: Promise<Result<T>>, signal?: AbortSignal | null): Promise<T> {
  let result: Result<T>;
  try {
    result = await pending;
  } catch (error) {
    throw toConsiliumError(error, signal ?? undefined);
  }
  const { response } = result;
  if (!response) throw toConsiliumError(result.error, signal ?? undefined);
  if (!response.ok || result.error !== undefined) throw errorFromProblem(result.error, response);
  return result.data as T;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

const aborted = () => new ConsiliumError('The request was aborted', { code: 'aborted' });

export class Consilium {
  /** The generated client underneath: pass it as `{ client }` to any generated operation. */
  readonly client: Client;
  readonly #fetch: typeof fetch | undefined;
  readonly #onError: ((error: ConsiliumError) => void) | undefined;

  constructor(options: ConsiliumOptions = {}) {
    this.client = createConsiliumClient(options);
    this.#fetch = options.fetch;
    this.#onError = options.onError;
  }

  /**
   * A generated operation called with `{ client: this.client }`, settled as the facade's own calls are: its data, or a
   * `ConsiliumError` thrown (and told to `onError`). For the operations the facade has no method for; pass the call's
   * `signal`, if it has one, so that its abort fails as `aborted`.
   */
  async settle<T>(call: Promise<{ data?: T; error?: unknown; response?: Response }>, signal?: AbortSignal): Promise<T> {
    try {
      return await settleCall(call, signal);
    } catch (error) {
      throw this.#told(error as ConsiliumError);
    }
  }

  /** `onError` hears of the failure; returns it, to be thrown. */
  #told(error: ConsiliumError): ConsiliumError {
    this.#onError?.(error);
    return error;
  }

  /** A stream whose failure is told to `onError`, once, as it is thrown. */
  async *#reported(events: AsyncGenerator<DebateEvent, void, undefined>): AsyncGenerator<DebateEvent, void, undefined> {
    try {
      yield* events;
    } catch (error) {
      throw this.#told(toConsiliumError(error));
    }
  }

  /**
   * Signs in with a username and password, creates an API token with the session cookie (ending after
   * `expiresInDays`, 7 by default), revokes the earlier tokens of the same name (unless `keepPrevious`), ends the
   * cookie session, and returns the token (its secret is shown once) with a client that uses it.
   */
  static async signIn(options: SignInOptions): Promise<{ consilium: Consilium; token: ApiTokenCreated }> {
    const {
      username,
      password,
      tokenName = 'consilium-sdk',
      expiresInDays = SIGN_IN_TOKEN_DAYS,
      keepPrevious = false,
      ...clientOptions
    } = options;
    const anonymous = new Consilium(clientOptions);
    const signedIn = await login({ client: anonymous.client, body: { username, password } }).then(async (r) => {
      await anonymous.settle(Promise.resolve(r));
      return r;
    });
    const cookie = signedIn.response.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    // A request signed in by cookie must name the service's own origin (the server's CSRF check), as a
    // browser does by itself; Node's fetch sends no Origin. From the request: a custom fetch's Response may have no URL.
    const origin = new URL(signedIn.request.url).origin;
    const headers = { cookie, origin };
    const token = await anonymous.settle(
      createApiToken({ client: anonymous.client, headers, body: { name: tokenName, expiresInDays } }),
    );
    if (!keepPrevious) {
      const { items } = await anonymous.settle(listApiTokens({ client: anonymous.client, headers }));
      for (const earlier of items) {
        if (earlier.name !== tokenName || earlier.id === token.id) continue;
        await anonymous.settle(revokeApiToken({ client: anonymous.client, headers, path: { tokenId: earlier.id } }));
      }
    }
    // The cookie session was only the way to the token: end it rather than leave it live for days.
    await anonymous.settle(logout({ client: anonymous.client, headers }));
    return { consilium: new Consilium({ ...clientOptions, token: token.token }), token };
  }

  health(): Promise<Health> {
    return this.settle(getHealth({ client: this.client }));
  }

  providers(): Promise<ProviderCatalogue> {
    return this.settle(listProviders({ client: this.client }));
  }

  /**
   * Each slot's track record over your deep debates (an admin's `owner: 'all'`, everyone's): how often its round-1
   * position survived into the verdict, its mean peer rank, and how often it changed its position and to whose.
   */
  trackRecord(options: { owner?: 'all' } = {}): Promise<TrackRecord> {
    return this.settle(getTrackRecord({ client: this.client, ...(options.owner && { query: { owner: options.owner } }) }));
  }

  /** One model's answer: the slot's provider (slot 1 by default), or `provider` by name. */
  readonly ask: Detachable<AskOptions, AskResult> = (async (question: string, options: AskOptions = {}) => {
    const provider = options.provider ?? (await this.#providerOf(options.slot ?? 1));
    const body = {
      question,
      ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
      ...(options.grounding && { grounding: options.grounding }),
      ...(options.tags && { tags: options.tags }),
      ...(options.detach && { detach: true }),
    };
    return this.settle(askProvider({ client: this.client, path: { provider }, body, signal: options.signal }), options.signal);
  }) as Detachable<AskOptions, AskResult>;

  readonly debates = {
    /** Every slot answers once, side by side. */
    parallel: ((question: string, options: ParallelOptions = {}) =>
      this.settle(
        runParallel({
          client: this.client,
          body: {
            question,
            ...(options.slots && { slots: options.slots }),
            ...(options.grounding && { grounding: options.grounding }),
            ...(options.tags && { tags: options.tags }),
            ...(options.detach && { detach: true }),
          },
          signal: options.signal,
        }),
        options.signal,
      )) as Detachable<ParallelOptions, ParallelResult>,
    /** A deep debate, answered once it has ended (or at once with its id, detached). */
    run: ((question: string, options: DebateOptions = {}) =>
      this.settle(
        runDeepDebate({
          client: this.client,
          body: deepBody(question, options),
          signal: options.signal,
        }),
        options.signal,
      )) as Detachable<DebateOptions, Session>,
    /**
     * A deep debate's events as they happen. Breaking out of the loop, or aborting `signal`, closes the
     * connection, which cancels the debate on the server (unless `detach`: then only deleting the session does).
     */
    stream: (question: string, options: DebateOptions = {}): AsyncGenerator<DebateEvent, void, undefined> =>
      this.#reported(
        this.#followMoved(
          this.#sse(
            (extra) => streamDeepDebate({ client: this.client, body: deepBody(question, options), ...extra }),
            options.signal,
          ),
          options.signal,
        ),
      ),
    /** A verdict for a stored session (`{ sessionId }`) or for given answers. */
    synthesize: (body: SynthesizeRequest): Promise<SynthesisResult> =>
      this.settle(synthesizeVerdict({ client: this.client, body })),
    /**
     * What a run would cost before it starts, per slot and in total (calls, tokens, dollars, each a range), and with
     * a `budget` whether it fits. Nothing is asked of any model.
     */
    estimate: (question: string, options: EstimateOptions = {}): Promise<Estimate> => {
      const { signal, ...request } = options;
      return this.settle(estimateRun({ client: this.client, body: { question, ...request }, signal }), signal);
    },
  };

  readonly sessions = {
    /** Your sessions, newest first, across pages. */
    list: (options: ListOptions = {}): SessionList => {
      const pages = async function* (this: Consilium): AsyncGenerator<SessionPage> {
        let cursor: string | undefined;
        do {
          const page: SessionPage = await this.settle(
            listSessions({ client: this.client, query: { ...options, ...(cursor !== undefined && { cursor }) } }),
          );
          yield page;
          cursor = page.nextCursor;
        } while (cursor !== undefined);
      }.bind(this);
      return {
        pages,
        async *[Symbol.asyncIterator]() {
          for await (const page of pages()) yield* page.items;
        },
      };
    },
    get: (id: string): Promise<Session> => this.settle(getSession({ client: this.client, path: { sessionId: id } })),
    /**
     * Stops a running session's run and keeps the session (`cancelled`, with what it said so far); an
     * ended session comes back as it is.
     */
    cancel: (id: string): Promise<Session> => this.settle(cancelSession({ client: this.client, path: { sessionId: id } })),
    /**
     * Continues an `interrupted` session (the server stopped mid-run) in the same session: kept answers
     * stay, only what is missing is asked again, and it goes on to its verdict. Its events continue the
     * same sequence: `follow(id, { lastEventId })` from where you were reads one unbroken debate. A session
     * that is not interrupted is refused (`conflict`, 409).
     */
    continue: ((id: string, options: ContinueOptions = {}) =>
      this.settle(
        continueSession({
          client: this.client,
          path: { sessionId: id },
          body: options.detach ? { detach: true } : {},
          signal: options.signal,
        }),
        options.signal,
      )) as Detachable<ContinueOptions, Session, [id: string]>,
    /**
     * Archives the session (it leaves `list()`, which shows archived ones with `archived: true`), or brings it back
     * with `archived: false`. Owner (or admin) only.
     */
    archive: (id: string, archived = true): Promise<Session> =>
      this.settle(updateSession({ client: this.client, path: { sessionId: id }, body: { archived } })),
    /** The users the session is shared with (read-only), earliest first. Owner (or admin) only. */
    shares: (id: string): Promise<Share[]> =>
      this.settle(listSessionShares({ client: this.client, path: { sessionId: id } })).then((l) => l.items),
    /**
     * Shares the session read-only with the user named `username`: they may read, follow and export it (and find it
     * with `list({ shared: true })`), not change it. Sharing again changes nothing.
     */
    share: (id: string, username: string): Promise<Share> =>
      this.settle(shareSession({ client: this.client, path: { sessionId: id }, body: { username } })),
    /** Stops sharing the session with that user: it reads as absent for them again. */
    unshare: async (id: string, userId: string): Promise<void> => {
      await this.settle(unshareSession({ client: this.client, path: { sessionId: id, userId } }));
    },
    /**
     * Runs a stored session again, detached, with its settings (`rerunSettings`): the same mode, slots or provider, rounds
     * and thread, with `question` instead of its own when given ("edit and resend"). A synthesis is made again from the
     * session it was made from, and answers once written. Returns the new session's id.
     */
    rerun: async (id: string, options: { question?: string; signal?: AbortSignal } = {}): Promise<{ sessionId: string }> => {
      const settings = rerunSettings(await this.sessions.get(id));
      const question = options.question ?? settings.question;
      const { signal } = options;
      switch (settings.mode) {
        case 'synthesis':
          if (settings.sourceSessionId === undefined) {
            throw this.#told(
              new ConsiliumError(`Session ${id} is a synthesis of answers that were not stored: it cannot be run again`, {
                code: 'conflict',
              }),
            );
          }
          return this.debates.synthesize({ sessionId: settings.sourceSessionId });
        case 'single':
          if (settings.parentId !== undefined) {
            return this.sessions.followUp(settings.parentId, question, {
              mode: 'single',
              provider: settings.provider,
              detach: true,
              signal,
            });
          }
          return this.ask(question, { provider: settings.provider, detach: true, signal });
        case 'parallel':
          if (settings.parentId !== undefined) {
            return this.sessions.followUp(settings.parentId, question, {
              mode: 'parallel',
              slots: settings.slots,
              detach: true,
              signal,
            });
          }
          return this.debates.parallel(question, { slots: settings.slots, detach: true, signal });
        case 'deep':
          if (settings.parentId !== undefined) {
            return this.sessions.followUp(settings.parentId, question, {
              mode: 'deep',
              rounds: settings.rounds,
              // A debate re-run as one even when its parent was adaptive.
              strategy: settings.strategy ?? 'debate',
              ...(settings.agreement !== undefined && { agreement: settings.agreement }),
              detach: true,
              signal,
            });
          }
          return this.debates.run(question, {
            rounds: settings.rounds,
            ...(settings.strategy && { strategy: settings.strategy, agreement: settings.agreement }),
            detach: true,
            signal,
          });
      }
    },
    /** Deletes the session and everything stored with it, stopping its run first if it is running. */
    delete: async (id: string): Promise<void> => {
      await this.settle(deleteSession({ client: this.client, path: { sessionId: id } }));
    },
    /** The session as Markdown (`md`) or as its JSON document. */
    export: (id: string, format: 'md' | 'json' = 'md'): Promise<string> =>
      format === 'md'
        ? (this.settle(
            exportSessionMarkdown({ client: this.client, path: { sessionId: id }, parseAs: 'text' }),
          ) as Promise<string>)
        : this.settle(exportSessionJson({ client: this.client, path: { sessionId: id } })).then(
            (s) => `${JSON.stringify(s, null, 2)}\n`,
          ),
    /**
     * A follow-up question on a finished session, asked in its thread: the new session, once it has
     * ended (its `threadId` and `parentId` link it to the thread).
     */
    followUp: (async (id: string, question: string, options: FollowUpOptions = {}) => {
      const { mode, slot, rounds, quorum, earlyStop, strategy, agreement, detach, signal } = options;
      if (slot !== undefined && options.provider !== undefined) {
        throw this.#told(new ConsiliumError('Give slot or provider, not both', { code: 'validation_failed' }));
      }
      const provider = slot === undefined ? options.provider : await this.#providerOf(slot);
      const body = {
        question,
        ...(mode !== undefined && { mode }),
        ...(provider !== undefined && { provider }),
        ...panelBody(options),
        ...(rounds !== undefined && { rounds }),
        ...(quorum !== undefined && { quorum }),
        ...(earlyStop !== undefined && { earlyStop }),
        ...(strategy !== undefined && { strategy }),
        ...(agreement !== undefined && { agreement }),
        ...(detach && { detach: true }),
      };
      return this.settle(askFollowUp({ client: this.client, path: { sessionId: id }, body, signal }), signal);
    }) as Detachable<FollowUpOptions, Session, [id: string, question: string]>,
    /**
     * A session's events: the stored ones, then live ones while it runs, until `session.ended` (or
     * `access.ended`: the caller may no longer read it, and it is not resumed). A dropped connection is
     * resumed with `Last-Event-ID`, so no event is missed or repeated.
     */
    follow: (id: string, options: FollowOptions = {}): AsyncGenerator<DebateEvent, void, undefined> =>
      this.#reported(this.#follow(id, options)),
  };

  readonly auth = {
    me: (): Promise<User> => this.settle(getCurrentUser({ client: this.client })),
    logout: async (): Promise<void> => {
      await this.settle(logout({ client: this.client }));
    },
    tokens: {
      list: (): Promise<ApiToken[]> => this.settle(listApiTokens({ client: this.client })).then((l) => l.items),
      create: (name: string, options: { expiresInDays?: number } = {}): Promise<ApiTokenCreated> =>
        this.settle(createApiToken({ client: this.client, body: { name, ...options } })),
      revoke: async (id: string): Promise<void> => {
        await this.settle(revokeApiToken({ client: this.client, path: { tokenId: id } }));
      },
    },
  };

  async #providerOf(slot: number): Promise<string> {
    const found = (await this.providers()).slots.find((s) => s.slot === slot);
    if (!found) throw this.#told(new ConsiliumError(`No slot ${slot} on this server`, { code: 'not_found' }));
    return found.provider;
  }

  /**
   * One SSE request as an async generator. A non-2xx answer is read into a `ConsiliumError` (the
   * generated client would only say "SSE failed: 400"), and any failure is thrown after the events
   * that arrived, never retried: a retried POST would start another debate.
   */
  async *#sse(
    open: (extra: {
      fetch: typeof fetch;
      signal: AbortSignal;
      sseMaxRetryAttempts: number;
      onSseError: (error: unknown) => void;
    }) => Promise<{ stream: AsyncGenerator<unknown> }>,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<DebateEvent, void, undefined> {
    const base = this.#fetch;
    const controller = new AbortController();
    const cancel = () => controller.abort(signal?.reason);
    if (signal?.aborted) throw aborted();
    signal?.addEventListener('abort', cancel);
    let failure: unknown;
    try {
      const { stream } = await open({
        fetch: async (input, init) => {
          const response = await (base ?? globalThis.fetch)(input, init);
          if (!response.ok) throw await errorFromResponse(response);
          return response;
        },
        signal: controller.signal,
        sseMaxRetryAttempts: 1,
        onSseError: (error) => {
          failure = error;
        },
      });
      for await (const event of stream) {
        // Events already read when the caller aborted are not handed out after it.
        if (signal?.aborted) break;
        yield event as DebateEvent;
      }
      if (signal?.aborted) throw aborted();
      if (failure !== undefined) throw toConsiliumError(failure, signal);
    } finally {
      signal?.removeEventListener('abort', cancel);
      // Leaving early (break, throw) must close the connection, or the server would debate on.
      controller.abort();
    }
  }

  /**
   * `events`, and where they say the debate went on (`stream.moved`: the server running it stopped, another took it
   * over), the session's own events from there: one debate, read to its end.
   */
  async *#followMoved(events: AsyncGenerator<DebateEvent, void, undefined>, signal?: AbortSignal): AsyncGenerator<DebateEvent> {
    for await (const event of events) {
      if (event.type !== 'stream.moved') {
        yield event;
        continue;
      }
      yield* this.#follow(event.sessionId, { lastEventId: event.seq, ...(signal && { signal }) });
      return;
    }
  }

  async *#follow(id: string, options: FollowOptions): AsyncGenerator<DebateEvent, void, undefined> {
    const { signal, maxRetries = 5, retryDelayMs = 250, onReconnect } = options;
    let last = options.lastEventId;
    let failures = 0;
    for (;;) {
      let failure: ConsiliumError | undefined;
      try {
        const events = this.#sse(
          (extra) =>
            streamSessionEvents({
              client: this.client,
              path: { sessionId: id },
              ...(last !== undefined && { headers: { 'Last-Event-ID': String(last) } }),
              ...extra,
            }),
          signal,
        );
        let moved = false;
        for await (const event of events) {
          // The server ended the stream for good (the share revoked, the credential ended): no reconnecting.
          if (event.type === 'access.ended') {
            yield event;
            return;
          }
          // Its server stopped serving it; the debate goes on: read on at once, wherever it now runs.
          if (event.type === 'stream.moved') {
            moved = true;
            break;
          }
          // A replay after a reconnection never repeats what was already yielded.
          if (last !== undefined && event.seq <= last) continue;
          last = event.seq;
          failures = 0;
          yield event;
          if (event.type === 'session.ended') return;
        }
        if (moved) continue;
      } catch (error) {
        failure = toConsiliumError(error, signal);
        // A refusal (404, 401, …) or an answer that breaks the contract will not heal; a server error (a proxy's 502
        // while the service restarts) may.
        if (failure.code !== 'network_error' && (failure.status ?? 0) < 500) throw failure;
      }
      if (signal?.aborted) throw aborted();
      failures += 1;
      if (failures > maxRetries) {
        throw (
          failure ??
          new ConsiliumError(`The event stream of ${id} kept closing before the session ended`, { code: 'network_error' })
        );
      }
      onReconnect?.(failures, failure);
      await sleep(Math.min(retryDelayMs * 2 ** (failures - 1), 5000), signal);
    }
  }
}

function deepBody(question: string, options: DebateOptions) {
  const { rounds, quorum, budget, earlyStop, detach, grounding, strategy, agreement, tags } = options;
  return {
    question,
    ...(detach && { detach: true }),
    ...(strategy !== undefined && { strategy }),
    ...(agreement !== undefined && { agreement }),
    ...(tags !== undefined && { tags }),
    ...(rounds !== undefined && { rounds }),
    ...(quorum !== undefined && { quorum }),
    ...(budget !== undefined && { budget }),
    ...(earlyStop !== undefined && { earlyStop }),
    ...panelBody(options),
    ...(grounding !== undefined && { grounding }),
  };
}

/** The types every HTTP module shares: what a request carries (`AppEnv`), and the dependencies the app is built from (`AppDeps`). */

import type { Context } from 'hono';
import type { User } from '../../../sdk/src/generated/types.gen.js';
import type { AccessBus, AccessWatch } from '../access/access.js';
import type { Accounts, Principal } from '../accounts/accounts.js';
import type { HashTicket } from '../accounts/hash-pool.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/log.js';
import type { DebateEngine } from '../debate/engine.js';
import type { WikiSources } from '../grounding/sources.js';
import type { LimitStore } from '../limits/store.js';
import type { Sessions } from '../sessions/sessions.js';

export interface AppEnv {
  Variables: {
    requestId: string;
    /**
     * Who is asking, set by `authenticate` before any handler of an operation that needs credentials
     * runs (absent on public ones). Per-user limits key on `user.id`.
     */
    user: User;
    /** How they proved it: which sign-in (cookie) or API token. */
    credential: Principal['via'];
    /** The open requests' holds on what let them in (`access.ts`), and when this request's credentials were checked on its clock. */
    accessWatch: AccessWatch;
    checkedAt: number;
    /** Checks the request's credentials again (for a stream open long after they were). */
    recheck?: () => Promise<Principal | undefined>;
    /** Whose sign-in a `POST /auth/login` is, for the hash pool's fair share (set by `loginRateLimit`). */
    signInTicket?: HashTicket;
    /** A detached debate's run, set by its handler: it holds a running slot until it settles, not until the response ends. */
    detachedRun?: Promise<unknown>;
  };
}

export interface AppDeps {
  config: Config;
  logger: Logger;
  version: string;
  /** When the process started, for `/health`'s uptime. */
  startedAt?: number;
  /** Stored sessions: where every run is recorded, and what history reads. */
  sessions: Sessions;
  /** Users, sign-ins and tokens. */
  accounts: Accounts;
  /** Where rate limits and running debates are counted: the database's (`Database.limits`); this process's memory when not given. */
  limits?: LimitStore;
  /** The debate engine; built from `config` and `env` when not given. */
  debate?: DebateDeps;
  /** Where slot keys are read from; `process.env` by default. */
  env?: Record<string, string | undefined>;
  /** The database's probes (`Database` from `store/open.ts`): `/ready` asks it, `/metrics` reports its pool. */
  store?: StoreProbe & { poolUse?: PoolUseSource; access?: AccessBus | undefined };
  /** Whether the app is stopping; `/ready` answers 503 `draining` once `drain()` is called. Made here when not given. */
  readiness?: ReadinessState;
  /** Ends open streams when their access ends; made (over `store.access` between instances) when not given. */
  access?: AccessWatch;
  /** The wiki sources debates may be grounded in; made from `config.wikis` (and their siteinfo read) when not given. */
  wikis?: WikiSources;
}

/** What of the store answers now (`Database.ready()`); each part's failure is named in `/ready`'s 503. */
export interface StoreProbe {
  ready(): Promise<{ name: string; ok: boolean; error?: string }[]>;
}

/** The PostgreSQL pool's counts (`Database.poolUse()`); undefined where there is no pool. */
export type PoolUseSource = () => { total: number; idle: number; waiting: number } | undefined;

/**
 * The app's own say in its readiness (`readiness.ts`' `Readiness`): `starting` until the start's work after the
 * port is bound is done; `drain()` when it is stopping, for good.
 */
export interface ReadinessState {
  readonly starting: boolean;
  readonly draining: boolean;
  drain(): void;
}

export interface DebateDeps {
  engine: DebateEngine;
  /** Where every run is recorded as it goes, and stored sessions are read for `/synthesize`. */
  sessions: Sessions;
  /** Who is asking: the owner of what they start. */
  ownerOf: (c: Context) => string;
  heartbeatMs?: number;
  /** The wiki sources a deep debate may ask to be grounded in. */
  wikis?: WikiSources;
}

/** The types every HTTP module shares: what a request carries, and what the app is built from. */

import type { Context } from 'hono';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/log.js';
import type { DebateEngine } from '../debate/engine.js';
import type { Sessions } from '../sessions/sessions.js';

export interface AppEnv {
  Variables: { requestId: string };
}

export interface AppDeps {
  config: Config;
  logger: Logger;
  version: string;
  /** When the process started, for `/health`'s uptime. */
  startedAt?: number;
  /** Stored sessions: where every run is recorded, and what history reads. */
  sessions: Sessions;
  /** The debate engine; built from `config` and `env` when not given. */
  debate?: DebateDeps;
  /** Where slot keys are read from; `process.env` by default. */
  env?: Record<string, string | undefined>;
}

export interface DebateDeps {
  engine: DebateEngine;
  /** Where every run is recorded as it goes, and stored sessions are read for `/synthesize`. */
  sessions: Sessions;
  /** Who is asking; one local owner until accounts exist. */
  ownerOf: (c: Context) => string;
  heartbeatMs?: number;
}

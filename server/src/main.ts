import type { Server } from 'node:http';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { canBuildSdkReference, claimSdkReferenceBuild, type SdkReferenceBuild } from '../../docs/src/sdk-build.js';
// Imported rather than read at run time, so the bundle `npm start` runs carries it.
import packageJson from '../../package.json' with { type: 'json' };
import type { Accounts } from './accounts/accounts.js';
import { openAccounts } from './accounts/open.js';
import { AccountError } from './accounts/store.js';
import { type Config, ConfigError, loadConfig, loadDotEnv } from './config/config.js';
import { createLogger, type Logger } from './config/log.js';
import { offlineBanner } from './config/offline-banner.js';
import { createApp } from './http/app.js';
import { defaultDocsDir } from './http/docs.js';
import { LOCAL_OWNER } from './http/owner.js';
import { Readiness } from './http/readiness.js';
import { answerClientErrors, httpServerOptions } from './http/timeouts.js';
import { startMaintenance } from './sessions/maintenance.js';
import { openSessions } from './sessions/open.js';
import type { Sessions } from './sessions/sessions.js';
import { type Database, openDatabase } from './store/open.js';

const { version } = packageJson;

async function start(): Promise<void> {
  const dotEnv = loadDotEnv();
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  // The AI SDK prints provider warnings to the console on every call (DeepSeek: the schema goes in the prompt);
  // they belong in the log, at debug level since they repeat per call.
  globalThis.AI_SDK_LOG_WARNINGS = ({ warnings, provider, model }) =>
    logger.debug('model warning', { provider, model, warnings: warnings.map((w) => JSON.stringify(w)) });
  const { database, sessions } = await openStores(config, logger);
  const accounts = openAccounts(database.accounts, config);
  const stopMaintenance = startMaintenance(sessions, { retentionDays: config.retentionDays, logger });
  // Not ready until the first admin exists (sign-in works); draining (SIGTERM) says so on `/ready` first, so
  // balancers send new requests elsewhere.
  const readiness = new Readiness({ starting: true });
  const app = createApp({
    config,
    logger,
    version,
    startedAt: Date.now(),
    sessions,
    accounts,
    limits: database.limits,
    store: database,
    readiness,
  });
  const sdkReference = sdkReferenceInBackground(logger);
  const serverOptions = httpServerOptions(config);
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port, serverOptions }, async (info) => {
    // Only once the port is ours: a start that cannot serve (EADDRINUSE) must not create the admin and print its
    // one-time password, or the next start would find the account made and the password gone with the failed one.
    await createFirstAdmin(accounts);
    readiness.started();
    const url = `http://${info.address.includes(':') ? `[${info.address}]` : info.address}:${info.port}`;
    logger.info('listening', {
      url,
      version,
      dotEnv,
      slots: config.slots.map((s) => `${s.slot}:${s.provider}:${s.live ? 'live' : 'offline'}`),
      database: redact(config.database),
      instance: config.instance.id,
    });
    if (config.logLevel !== 'silent') console.log(banner(url, config));
    sdkReference.start();
  });
  answerClientErrors(server);
  server.on('error', (err: NodeJS.ErrnoException) => {
    console.error(`consilium: cannot listen on ${config.host}:${config.port}: ${err.code ?? err.message}`);
    process.exit(1);
  });
  const stop = drainOnStop({
    server,
    config,
    logger,
    sessions,
    database,
    stopping: () => {
      stopMaintenance();
      sdkReference.stop();
      readiness.drain();
    },
  });
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Under `npm start`, stopping npm itself (a kill of its PID) signals the shell npm ran this under, not this process,
  // which is left orphaned: it stops as if signalled once its parent is gone.
  if (process.env.npm_lifecycle_event === 'start') whenOrphaned(() => stop('SIGTERM'));
}

function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`consilium: configuration error: ${err.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

/** The database and the sessions on it; exits 1, saying why, when it cannot be opened. */
async function openStores(config: Config, logger: Logger): Promise<{ database: Database; sessions: Sessions }> {
  try {
    const { id, poolSize, leaseMs, heartbeatMs, sweepMs } = config.instance;
    const database = await openDatabase(config.database, {
      instanceId: id,
      maxConnections: poolSize,
      leaseMs,
      heartbeatMs,
      recoverEveryMs: sweepMs,
      // Lease renewal, the sweep for orphaned runs and the LISTEN connection retry on their own; say why they failed.
      onError: (error) =>
        logger.error('session store background work failed; retrying', {
          instance: id,
          error: error instanceof Error ? error.message : String(error),
        }),
    });
    const sessions = await openSessions(database.sessions, {
      cacheSize: config.sessionCacheSize,
      storeRetryMs: config.storeRetryMs,
      checkEveryMs: config.instance.sweepMs,
      // A dead instance's run is recovered within a lease and a sweep, then handed over.
      handOverWaitMs: config.instance.leaseMs + 2 * config.instance.sweepMs,
      logger,
    });
    return { database, sessions };
  } catch (err) {
    console.error(`consilium: cannot open the session store at ${redact(config.database)}: ${(err as Error).message}`);
    process.exit(1);
  }
}

/** What the console shows once the server serves: where, and how to make each offline slot live. */
function banner(url: string, config: Config): string {
  return [
    `\nConsilium ${version} is serving ${url}`,
    `  web UI:    ${url}/`,
    `  API docs:  ${url}/docs/`,
    `  health:    ${url}/health`,
    `  providers: ${url}/providers`,
    `  contract:  ${url}/openapi.json`,
    '  accounts:  npm run users -- list | add NAME | reset-password NAME (a lost password too)',
    offlineBanner(config.slots),
  ].join('\n');
}

/**
 * The SDK reference, when it is not built, built in the background once the server serves: claimed at once, so
 * `/docs/sdk/` says it is being built from the first request on. Whatever ends the process, no build is left
 * running or half-written.
 */
function sdkReferenceInBackground(logger: Logger): { start(): void; stop(): void } {
  const repository = join(defaultDocsDir(), '../../..');
  const claim = canBuildSdkReference(repository) ? claimSdkReferenceBuild({ root: repository }) : undefined;
  let build: SdkReferenceBuild | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    if (build) build.stop();
    else claim?.release();
  };
  process.on('exit', stop);
  return {
    start() {
      if (!claim || stopped) return;
      build = claim.start();
      logger.info('building the SDK reference for /docs/sdk/ in the background (first start only)');
      build.done.then((result) => {
        if (result === true) logger.info('the SDK reference is built: /docs/sdk/');
        else if (result !== 'stopped')
          logger.error('the SDK reference could not be built; run `npm run docs`', { error: result });
      });
    },
    stop,
  };
}

interface DrainOptions {
  server: ReturnType<typeof serve>;
  config: Config;
  logger: Logger;
  sessions: Sessions;
  database: Database;
  /** What stops first: background work, and the readiness that sends balancers elsewhere. */
  stopping(): void;
}

/**
 * The stop for SIGTERM (a deploy) and Ctrl-C: no new connections or debates; running ones get CONSILIUM_DRAIN_MS
 * to finish, and the rest end `interrupted`, for another instance (or the next start) to continue. A second signal
 * cuts the wait.
 */
function drainOnStop({ server, config, logger, sessions, database, stopping }: DrainOptions): (signal: NodeJS.Signals) => void {
  const now = new AbortController();
  let stopped = false;
  return (signal) => {
    if (stopped) return now.abort();
    stopped = true;
    stopping();
    server.close();
    (server as Server).closeIdleConnections();
    const running = sessions.recorder.running;
    logger.info('stopping', { signal, running, drainMs: config.drainMs });
    if (running > 0 && config.logLevel !== 'silent') {
      console.log(
        `\nStopping: ${running} debate(s) running; waiting up to ${Math.round(config.drainMs / 1000)} s for them (${signal} again to stop now).`,
      );
    }
    sessions
      .drain(config.drainMs, { now: now.signal })
      .then((interrupted) => {
        if (interrupted.length > 0) {
          logger.warn('debates interrupted by the stop; POST /sessions/{id}/continue resumes them', {
            sessions: interrupted.map((s) => s.id),
          });
        }
        (server as Server).closeAllConnections();
        return sessions.close(0);
      })
      .then(() => database.close())
      .then(
        () => process.exit(0),
        (err: Error) => {
          logger.error('closing the session store failed', { error: err.message });
          process.exit(1);
        },
      );
  };
}

/** With no users yet, creates `admin` and prints its password (shown this once); exits 78 on a bad CONSILIUM_ADMIN_PASSWORD. */
async function createFirstAdmin(accounts: Accounts): Promise<void> {
  try {
    const adminPassword = process.env.CONSILIUM_ADMIN_PASSWORD || undefined;
    const created = await accounts.bootstrap({ ...(adminPassword && { password: adminPassword }), adopt: LOCAL_OWNER });
    if (created) {
      // Printed whatever the log level: it is shown this once, and stored only hashed.
      console.log(
        adminPassword
          ? `\nFirst run: created the account "${created.username}" with the password in CONSILIUM_ADMIN_PASSWORD.\n`
          : `\nFirst run: created the account "${created.username}".\n  username: ${created.username}\n  password: ${created.password}\n` +
              '  It is shown only this once; change it with POST /auth/password (or npm run users -- reset-password admin).\n',
      );
    }
  } catch (err) {
    if (err instanceof AccountError) {
      console.error(`consilium: configuration error: CONSILIUM_ADMIN_PASSWORD: ${err.message}`);
      process.exit(78);
    }
    throw err;
  }
}

/** Calls `orphaned` once this process's parent is gone (it is given another), checking twice a second. */
function whenOrphaned(orphaned: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    orphaned();
  }, 500);
  timer.unref();
}

/** A database URL without its password, for logs. */
function redact(location: string): string {
  return location.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

await start();

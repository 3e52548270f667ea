import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, ErrorHandler, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { HTTPException } from 'hono/http-exception';
import { requestId } from 'hono/request-id';
import { AccessWatch } from '../access/access.js';
import { HashPoolFull } from '../accounts/hash-pool.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/log.js';
import { type CallFailure, DebateEngine } from '../debate/engine.js';
import { documentFields, type Handlers, registerContract } from '../generated/routes.js';
import { WikiSources } from '../grounding/sources.js';
import { MemoryLimitStore } from '../limits/memory.js';
import { McpEndpoint } from '../mcp/endpoint.js';
import { createSlotModel } from '../providers/models.js';
import { continueHandedOver } from '../runs/hand-over.js';
import { Runs } from '../runs/runs.js';
import type { Sessions } from '../sessions/sessions.js';
import { StoreError } from '../sessions/store.js';
import { watchAccess } from './access.js';
import { accountHandlers } from './accounts.js';
import { authenticate, SESSION_COOKIE } from './auth.js';
import { limitBody } from './body-limit.js';
import { clientAddresses } from './client-address.js';
import { debateHandlers } from './debate.js';
import { DEBATE_STARTS, debateGate, limitDebates } from './debate-limits.js';
import type { AppDeps, AppEnv, DebateDeps } from './deps.js';
import { mountDocs } from './docs.js';
import { hostCheck, hostNames } from './host-check.js';
import { admitRuns, mountMcp } from './mcp.js';
import { acceptedMediaTypes } from './media-type.js';
import { metaHandlers } from './meta.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { AppMetrics, metricsHandler } from './metrics.js';
import { openAIErrors } from './openai/errors.js';
import { openAIHandlers } from './openai/handlers.js';
import { LOCAL_OWNER, ownerOf, scopeOf } from './owner.js';
import { hashingBusy, problem, storeUnavailable, unstorableTextProblem, validationProblem } from './problem.js';
import { foldName, loginRateLimit } from './rate-limit.js';
import { Readiness, readinessHandlers, refuseWhileDraining } from './readiness.js';
import { securityHeaders } from './security-headers.js';
import { sessionHandlers } from './sessions.js';
import { trustHandlers } from './trust.js';
import { closeOnUnreadBody } from './unread-body.js';
import { requireUtf8Json } from './utf8-body.js';
import { mountWeb } from './web.js';

/** The engine for a configuration: each slot's model (offline when it has no key) behind one panel. */
function createDebateDeps(
  config: Config,
  sessions: Sessions,
  env: Record<string, string | undefined> = process.env,
  logger?: Logger,
  metrics?: AppMetrics,
): DebateDeps {
  const offline = config.offlineTokenDelayMs !== undefined ? { offline: { tokenDelayMs: config.offlineTokenDelayMs } } : {};
  const engine = new DebateEngine({
    panel: config.slots.map((slot) => ({ config: slot, model: createSlotModel(slot, env, offline) })),
    quorum: config.quorum,
    callTimeoutMs: config.callTimeoutMs,
    maxRetries: config.maxRetries,
    prices: config.prices,
    owner: LOCAL_OWNER,
    // A request's per-slot model (from the slot's operator-set list) gets a model of its own.
    modelFor: (slot) => createSlotModel(slot, env, offline),
    // The cause and the provider's request id of every failed call, retried or not: a 502 alone says nothing.
    ...((logger || metrics) && {
      onCallFailed: (failure: CallFailure) => {
        logger?.warn('provider call failed', { ...failure });
        metrics?.providerFailed(failure);
      },
    }),
  });
  return { engine, sessions, ownerOf, heartbeatMs: config.sseHeartbeatMs };
}

/** Request bodies above this size are refused with 413 before they are parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A 415 that says which media type to send: in `detail`, and in the registered `Accept-Post` / `Accept-Patch` header. */
function unsupportedMediaType(c: Context): Response {
  const types = acceptedMediaTypes(c.req.method, c.req.routePath);
  const sent = c.req.header('content-type');
  c.header(c.req.method === 'PATCH' ? 'accept-patch' : 'accept-post', types.join(', '));
  return problem(c, 415, 'unsupported_media_type', {
    detail: `Send the body as ${types.join(' or ')} (Content-Type: ${types[0]}); got ${sent ? JSON.stringify(sent) : 'no Content-Type'}.`,
  });
}

/**
 * A store that is down or locked (`StoreError` `unavailable`, also as the cause of another error):
 * worth retrying. Its other codes (`conflict`: a write that broke a constraint; `corrupt`) are bugs or
 * need an operator, and stay 500 like any other unexpected error.
 */
function storeDown(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof StoreError) return e.code === 'unavailable';
  }
  return false;
}

export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    // Every validation failure of a generated route becomes one problem listing each field; so does valid
    // data holding text that could not be stored as sent (lone surrogates, NUL), before any handler sees it.
    defaultHook: (result, c) =>
      result.success ? unstorableTextProblem(c, result.target, result.data) : validationProblem(c, result.target, result.error),
  });

  app.use(requestId());
  app.use(securityHeaders());
  app.use(closeOnUnreadBody());
  app.use(requestLog(deps.logger));
  const { host, publicOrigin, allowedHosts } = deps.config;
  app.use(
    hostCheck(
      hostNames({ listenHost: host, publicOrigin, allowedHosts: allowedHosts === '*' ? [] : allowedHosts }),
      allowedHosts === '*',
    ),
  );
  app.use(methodNotAllowed());
  // The OpenAI surface answers every error, the guards' below included, in OpenAI's shape.
  app.use('/v1/*', openAIErrors());
  // Open streams end when what let them in ends, on this instance or (through the store) any other.
  const access =
    deps.access ??
    new AccessWatch({
      bus: deps.store?.access,
      onError: (error) => deps.logger.warn('telling other instances that access ended failed', { error: String(error) }),
    });
  deps.accounts.onCredentialsEnded((end) => access.end(end));
  deps.sessions.onAccessEnded((end) => access.end(end));
  app.use(watchAccess(access));
  // Before `authenticate`: the metrics token is no API token, and without one configured this is any unknown path.
  const metrics = deps.config.metricsToken
    ? new AppMetrics({ recorder: deps.sessions.recorder, poolUse: deps.store?.poolUse?.bind(deps.store) })
    : undefined;
  app.get('/metrics', metricsHandler(deps.config.metricsToken, metrics));
  // Before the body is read: a request without valid credentials gets no further than its headers.
  app.use(authenticate({ accounts: deps.accounts, publicOrigin }));
  const tooLarge = (c: Context) =>
    problem(c, 413, 'payload_too_large', { detail: `Request bodies are limited to ${MAX_BODY_BYTES} bytes.` });
  app.use(limitBody(MAX_BODY_BYTES, tooLarge));
  app.use(requireUtf8Json());

  const { loginPerAccount, loginPerAddress } = deps.config.rateLimits;
  const limits = deps.limits ?? new MemoryLimitStore();
  const clientAddress = clientAddresses(deps.config.trustedProxies);
  app.on(
    'POST',
    '/auth/login',
    loginRateLimit({
      store: limits,
      perAccount: loginPerAccount,
      perAddress: loginPerAddress,
      clientAddress,
      // A session cookie of the account signing in: it is known here.
      signedInAs: async (c) => {
        const cookie = getCookie(c, SESSION_COOKIE);
        if (cookie === undefined || cookie.length > 100) return undefined;
        const principal = await deps.accounts.authenticateSignIn(cookie);
        return principal && foldName(principal.user.username);
      },
    }),
  );

  const readiness = deps.readiness ?? new Readiness();
  const wikis = deps.wikis ?? new WikiSources(deps.config.wikis);
  // Each source's siteinfo is read once at start; an unreachable wiki is reported by /providers, never fatal.
  if (!deps.wikis && wikis.names.length > 0) void wikis.start();
  const debate = { wikis, ...(deps.debate ?? createDebateDeps(deps.config, deps.sessions, deps.env, deps.logger, metrics)) };
  const runs = new Runs(debate);
  // On a shared store, runs other instances lost or left are continued here (or by a peer).
  continueHandedOver({ runs, draining: () => readiness.draining, logger: deps.logger });
  const gate = debateGate(deps.config.rateLimits, limits);
  const handlers: Handlers<AppEnv> = {
    ...metaHandlers({ ...deps, wikis }),
    ...readinessHandlers({ readiness, instanceId: deps.config.instance.id, store: deps.store }),
    ...refuseWhileDraining(
      limitDebates(
        { ...debateHandlers({ ...debate, runs }), ...openAIHandlers({ runs, ownerOf: debate.ownerOf, publicOrigin }) },
        gate,
        ownerOf,
      ),
      DEBATE_STARTS,
      readiness,
    ),
    ...sessionHandlers({ sessions: deps.sessions, scopeOf, accounts: deps.accounts, heartbeatMs: deps.config.sseHeartbeatMs }),
    ...accountHandlers({ accounts: deps.accounts, publicOrigin }),
    ...trustHandlers(debate),
  };
  registerContract(app, handlers);
  // The same runs for MCP clients (desktop assistants, coding agents), signed in with an API token.
  mountMcp(app, new McpEndpoint({ runs, version: deps.version, admit: admitRuns(gate, () => readiness.draining) }), publicOrigin);

  // The contract names `npm start`'s default address; the served copy names where it was fetched from (or the published
  // origin), so a client generated from it talks to this server on whatever port it runs.
  app.doc31('/openapi.json', (c) => ({
    ...documentFields,
    servers: [
      { url: publicOrigin?.origin ?? new URL(c.req.url).origin, description: 'The server this document was served from.' },
    ],
  }));
  mountDocs(app);
  mountWeb(app);

  app.notFound((c) => problem(c, 404, 'not_found', { detail: `No route for ${c.req.method} ${c.req.path}.` }));
  app.onError(errorProblem(deps.logger));
  return app;
}

/** One line per request: its id, method, path, status and time. */
function requestLog(logger: AppDeps['logger']): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const start = performance.now();
    await next();
    logger.info('request', {
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - start) * 10) / 10,
    });
  };
}

/** What a thrown error answers: the parsers' and guards' faults as their problems, anything else a logged 500. */
function errorProblem(logger: AppDeps['logger']): ErrorHandler<AppEnv> {
  return (err, c) => {
    if (err instanceof HTTPException && err.status === 400) {
      // Hono's body parsers throw this for JSON that does not parse.
      return problem(c, 400, 'malformed_body', { detail: err.message });
    }
    if (err instanceof HTTPException && err.status === 415) return unsupportedMediaType(c);
    if (err instanceof HTTPException && err.status < 500) {
      return problem(c, err.status, 'validation_failed', { detail: err.message });
    }
    if (err instanceof HashPoolFull) return hashingBusy(c, err.retryAfterS);
    if (storeDown(err)) {
      // Not a bug: the operator needs the store's own words, not a stack.
      logger.error('session store unavailable', { requestId: c.get('requestId'), error: String(err?.message ?? err) });
      return storeUnavailable(c);
    }
    logger.error('unhandled error', { requestId: c.get('requestId'), error: String(err?.stack ?? err) });
    return problem(c, 500, 'internal_error', { detail: 'An unexpected error occurred; quote the requestId when reporting it.' });
  };
}

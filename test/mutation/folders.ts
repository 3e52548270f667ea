/**
 * What `npm run mutate` measures: per folder, the source files mutated and the tests related to
 * them (only those run, to keep each run short on a shared machine).
 */
export interface MutationFolder {
  /** Source globs Stryker mutates. */
  mutate: string[];
  /** Test files that run against each mutant. */
  tests: string[];
  /** Environment the tests run with under this folder's mutants (e.g. fewer property runs). */
  env?: Record<string, string>;
}

export const FOLDERS: Record<string, MutationFolder> = {
  // The debate protocol: quorum, hand-off, statuses, verdict fallback and degradation, and the files it is made of
  // (prompts, consensus, the event log, the streamed positions, a follow-up's thread, ids, pricing; the chosen panel,
  // anonymous labels, the peer ranking and prompt budgets).
  engine: {
    mutate: [
      'server/src/debate/engine.ts',
      'server/src/debate/run.ts',
      'server/src/debate/context.ts',
      'server/src/debate/single.ts',
      'server/src/debate/deep.ts',
      'server/src/debate/rounds.ts',
      'server/src/debate/peer-ranking.ts',
      'server/src/debate/verdict.ts',
      'server/src/debate/prompts.ts',
      'server/src/debate/consensus.ts',
      'server/src/debate/events.ts',
      'server/src/debate/position-stream.ts',
      'server/src/debate/thread.ts',
      'server/src/debate/ids.ts',
      'server/src/debate/pricing.ts',
      'server/src/debate/panel.ts',
      'server/src/debate/anonymise.ts',
      'server/src/debate/ranking.ts',
      'server/src/debate/budget.ts',
      // The integrity report, the adaptive strategy, the estimate and the track record (issue 40), and the
      // settings and grounding hooks the engine reads.
      'server/src/debate/adaptive.ts',
      'server/src/debate/integrity.ts',
      'server/src/debate/positions.ts',
      'server/src/debate/families.ts',
      'server/src/debate/estimate.ts',
      'server/src/debate/track-record.ts',
      'server/src/debate/settings.ts',
      'server/src/debate/grounding.ts',
    ],
    tests: [
      'server/src/debate/engine.test.ts',
      'server/src/debate/prompts.test.ts',
      'server/src/debate/consensus.test.ts',
      'server/src/debate/events.test.ts',
      'server/src/debate/position-stream.test.ts',
      'server/src/debate/thread.test.ts',
      'server/src/debate/ids.test.ts',
      'server/src/debate/pricing.test.ts',
      'server/src/sessions/sessions.test.ts',
      'test/debate/protocol.test.ts',
      'test/debate/engine-modes.test.ts',
      'server/src/debate/anonymise.test.ts',
      'server/src/debate/ranking.test.ts',
      'server/src/debate/budget.test.ts',
      'test/debate/panel.test.ts',
      'server/src/debate/adaptive.test.ts',
      'server/src/debate/integrity.test.ts',
      'server/src/debate/positions.test.ts',
      'server/src/debate/families.test.ts',
      'server/src/debate/estimate.test.ts',
      'server/src/debate/track-record.test.ts',
      'test/debate/integrity.test.ts',
    ],
  },
  // The engine's issue-40 files (the integrity report, the adaptive strategy, the estimate, the track record) on
  // their unit tests alone: `engine` lists them too, but there every mutant the scripted-model server test covers
  // reruns it (1,176 mutants, estimated at over 3 h here); this folder measures them in minutes.
  trust: {
    mutate: [
      'server/src/debate/adaptive.ts',
      'server/src/debate/integrity.ts',
      'server/src/debate/positions.ts',
      'server/src/debate/families.ts',
      'server/src/debate/estimate.ts',
      'server/src/debate/track-record.ts',
    ],
    tests: [
      'server/src/debate/adaptive.test.ts',
      'server/src/debate/integrity.test.ts',
      'server/src/debate/positions.test.ts',
      'server/src/debate/families.test.ts',
      'server/src/debate/estimate.test.ts',
      'server/src/debate/track-record.test.ts',
    ],
  },
  // The session layer in front of the stores, and the SQLite database with the session and account stores
  // it keeps side by side (the store contracts in test/store/sqlite.test.ts cover both; the HTTP side of
  // accounts is `http`'s).
  sessions: {
    mutate: [
      'server/src/sessions/sessions.ts',
      'server/src/sessions/cache.ts',
      'server/src/sessions/recorder.ts',
      // The recorder's copy of a running session (what each step stores).
      'server/src/sessions/snapshot.ts',
      'server/src/store/sqlite/sessions.ts',
      'server/src/store/sqlite/write-queue.ts',
      'server/src/store/sqlite/steps.ts',
      'server/src/store/sqlite/accounts.ts',
    ],
    tests: [
      'server/src/sessions/sessions.test.ts',
      'server/src/sessions/cache.test.ts',
      'server/src/sessions/recorder.test.ts',
      'server/src/sessions/snapshot.test.ts',
      'server/src/store/sqlite/write-queue.test.ts',
      'test/store/sqlite.test.ts',
    ],
  },
  // The HTTP/auth layer: problems, host check, security headers, unread bodies, text checks, owner
  // resolution, authentication and authorization (`auth.ts`), the account endpoints and rate limits.
  http: {
    mutate: [
      'server/src/http/problem.ts',
      'server/src/http/host-check.ts',
      'server/src/http/security-headers.ts',
      'server/src/http/unread-body.ts',
      'server/src/http/unstorable-text.ts',
      'server/src/http/owner.ts',
      'server/src/http/auth.ts',
      'server/src/http/accounts.ts',
      'server/src/http/rate-limit.ts',
      'server/src/http/client-address.ts',
      'server/src/limits/memory.ts',
    ],
    tests: [
      'server/src/http/problem.test.ts',
      'server/src/http/host-check.test.ts',
      'server/src/http/security-headers.test.ts',
      'server/src/http/unread-body.test.ts',
      'server/src/http/unstorable-text.test.ts',
      'server/src/http/rate-limit.test.ts',
      'server/src/http/client-address.test.ts',
      'server/src/http/owner.test.ts',
      'server/src/http/auth.test.ts',
      'server/src/http/accounts.test.ts',
      'test/server/http.test.ts',
      'test/auth/contract.test.ts',
      'test/auth/flows.test.ts',
    ],
  },
  // The auth layer alone (a subset of `http`) with only its unit tests and those that exercise it over a real
  // server. Its tests start their servers in `beforeFirstTest`, not `beforeAll`, so only module-level code is
  // static (each such mutant reruns all of the folder's tests); `http` is measured file by file the same way.
  auth: {
    mutate: ['server/src/http/auth.ts', 'server/src/http/owner.ts', 'server/src/http/accounts.ts'],
    tests: [
      'server/src/http/owner.test.ts',
      'server/src/http/auth.test.ts',
      'server/src/http/accounts.test.ts',
      'test/auth/contract.test.ts',
      'test/auth/flows.test.ts',
    ],
  },
  // The accounts domain module under the auth layer (users, sign-ins, tokens, password hashing): where
  // the auth decisions (expiry, revocation, disabled users, the last admin) are made; the middleware only
  // turns a cookie or a token into a call to it. A folder of its own because it is domain, not HTTP
  // (it knows nothing of requests), so its own unit tests on a real SQLite store measure it; through
  // the server every mutant it runs while a test server starts would rerun all the HTTP tests.
  // Not the `users` CLI (`cli.ts`, a front end with its own tests) nor the store's types.
  accounts: {
    mutate: ['server/src/accounts/accounts.ts', 'server/src/accounts/passwords.ts', 'server/src/accounts/secrets.ts'],
    tests: ['server/src/accounts/accounts.test.ts', 'server/src/accounts/passwords.test.ts'],
  },
  // The wiki validator's core: dispatch and settings, multi values, numbers, and the simple TypeDefs (string,
  // enum, boolean, namespace) every catalogue module uses. Titles, users, IPs and timestamps have their own
  // unit tests and are not in this folder.
  wiki: {
    mutate: [
      'sdk/src/wiki/validate/core.ts',
      // Every built-in type in one table (`validateParam` with all of them, `withAllTypes`).
      'sdk/src/wiki/validate/registry.ts',
      'sdk/src/wiki/validate/multi.ts',
      'sdk/src/wiki/validate/numeric.ts',
      'sdk/src/wiki/validate/typedefs.ts',
    ],
    tests: [
      'sdk/src/wiki/validate/core.test.ts',
      'sdk/src/wiki/validate/messages.test.ts',
      'sdk/src/wiki/validate/multi.test.ts',
      'sdk/src/wiki/validate/numeric.test.ts',
      'sdk/src/wiki/validate/property.test.ts',
      'sdk/src/wiki/validate/registry.test.ts',
      'sdk/src/wiki/validate/typedefs.test.ts',
      'test/wiki/conformance.test.ts',
      'test/wiki/property-valid.test.ts',
    ],
  },
  // The request builder's fast path, which must agree with the full validator. Its unit tests say where it
  // must answer and where it must leave; the properties check agreement on random input, at a tenth of their
  // runs (every mutant reruns them all: at full runs the folder was estimated at 7 h 30 min).
  'wiki-fast': {
    mutate: ['sdk/src/wiki/fast-path.ts'],
    tests: ['sdk/src/wiki/fast-path.test.ts', 'test/wiki/fast.test.ts', 'test/wiki/property-valid.test.ts'],
    env: { CONSILIUM_PROPERTY_RUNS_SCALE: '0.1' },
  },
  // How providers' streams are read: each wire format's decoder (text, the end marker, usage with its cache and
  // reasoning parts, refusals, streamed errors), the table of what providers call their errors, and the
  // classification of every failure; over recorded real streams through both paths as well as unit frames.
  'providers-wire': {
    mutate: [
      'server/src/providers/wire/anthropic-messages.ts',
      'server/src/providers/wire/chat-completions.ts',
      'server/src/providers/wire/gemini-generate-content.ts',
      'server/src/providers/wire/frames.ts',
      'server/src/providers/wire/formats.ts',
      'server/src/providers/wire/sse-decoder.ts',
      'server/src/providers/wire/error-names.ts',
      'server/src/providers/errors.ts',
    ],
    tests: [
      'server/src/providers/wire/anthropic-messages.test.ts',
      'server/src/providers/wire/chat-completions.test.ts',
      'server/src/providers/wire/gemini-generate-content.test.ts',
      'server/src/providers/wire/sse-decoder.test.ts',
      'server/src/providers/wire/error-names.test.ts',
      'server/src/providers/wire/odd-frames.test.ts',
      'server/src/providers/errors.test.ts',
      'test/providers/recordings.test.ts',
    ],
  },
  // Grounding: the sources' retrieval, the cut of what a wiki sends, the plain text of its pages, and the citations
  // a verdict's quotations are checked against.
  grounding: {
    mutate: [
      'server/src/grounding/citations.ts',
      'server/src/grounding/cut-json.ts',
      'server/src/grounding/plain-text.ts',
      'server/src/grounding/sources.ts',
      'server/src/grounding/run.ts',
    ],
    tests: [
      'server/src/grounding/citations.test.ts',
      'server/src/grounding/cut-json.test.ts',
      'server/src/grounding/plain-text.test.ts',
      'server/src/grounding/sources.test.ts',
      'server/src/grounding/run.test.ts',
      // run.ts is the engine's hook: these drive it through the real server against the suite's MediaWiki (the
      // retrieval, the prompts' sources, tool calls, a cut page, extracts and wikitext, a wiki down or slow).
      'test/grounding/wiki.test.ts',
      'test/grounding/modes.test.ts',
      'test/grounding/tools.test.ts',
      'test/grounding/large-page.test.ts',
      'test/grounding/extracts.test.ts',
    ],
  },
  // The full-text index: what a session is found by, and re-indexed when (the store contract on SQLite).
  search: {
    mutate: ['server/src/store/sqlite/search.ts', 'server/src/store/sqlite/steps.ts'],
    tests: ['test/store/sqlite.test.ts'],
  },
  // The wiki client: continuation in list, prop and generator mode, errors and warnings, GET/POST, retries.
  'wiki-client': {
    mutate: ['sdk/src/wiki/client.ts'],
    tests: ['sdk/src/wiki/client.test.ts', 'test/wiki/client.test.ts'],
  },
};

/**
 * What `npm run mutate` measures: per folder, the source files mutated and the tests related to
 * them (only those run, to keep each run short on a shared machine).
 */
export interface MutationFolder {
  /** Source globs Stryker mutates. */
  mutate: string[];
  /** Test files that run against each mutant. */
  tests: string[];
}

export const FOLDERS: Record<string, MutationFolder> = {
  // The debate protocol: quorum, hand-off, statuses, verdict fallback and degradation.
  engine: {
    mutate: ['server/src/debate/engine.ts'],
    tests: ['server/src/debate/engine.test.ts', 'test/debate/protocol.test.ts', 'test/debate/engine-modes.test.ts'],
  },
  // The session layer in front of the stores, and the SQLite store with the accounts it keeps beside the
  // sessions (the store contract in sqlite.test.ts covers both; the HTTP side of accounts is `http`'s).
  sessions: {
    mutate: [
      'server/src/sessions/sessions.ts',
      'server/src/sessions/cache.ts',
      'server/src/sessions/recorder.ts',
      'server/src/sessions/sqlite/store.ts',
      'server/src/sessions/sqlite/accounts.ts',
    ],
    tests: [
      'server/src/sessions/sessions.test.ts',
      'server/src/sessions/cache.test.ts',
      'server/src/sessions/recorder.test.ts',
      'test/sessions/sqlite.test.ts',
    ],
  },
  // The HTTP layer: problems, host check, security headers, unread bodies, text checks, owner resolution.
  // (Accounts and sign-in join here once the auth branch lands.)
  http: {
    mutate: [
      'server/src/http/problem.ts',
      'server/src/http/host-check.ts',
      'server/src/http/security-headers.ts',
      'server/src/http/unread-body.ts',
      'server/src/http/faithful-text.ts',
      'server/src/http/owner.ts',
    ],
    tests: [
      'server/src/http/problem.test.ts',
      'server/src/http/host-check.test.ts',
      'server/src/http/security-headers.test.ts',
      'server/src/http/unread-body.test.ts',
      'server/src/http/faithful-text.test.ts',
      'test/server/http.test.ts',
    ],
  },
  // The wiki validator's core: dispatch and settings, multi values, numbers.
  wiki: {
    mutate: ['sdk/src/wiki/validate/core.ts', 'sdk/src/wiki/validate/multi.ts', 'sdk/src/wiki/validate/numeric.ts'],
    tests: [
      'sdk/src/wiki/validate/core.test.ts',
      'sdk/src/wiki/validate/multi.test.ts',
      'sdk/src/wiki/validate/numeric.test.ts',
      'test/wiki/conformance.test.ts',
      'test/wiki/property-valid.test.ts',
    ],
  },
  // The request builder's fast path, which must agree with the full validator.
  'wiki-fast': {
    mutate: ['sdk/src/wiki/fast.ts'],
    tests: ['test/wiki/fast.test.ts', 'test/wiki/property-valid.test.ts'],
  },
};

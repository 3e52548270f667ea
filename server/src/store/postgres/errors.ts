/** PostgreSQL and driver failures as `StoreError`s a caller can act on; anything else is a bug and passes through. */
import { StoreError } from '../../sessions/store.js';

/** Socket-level failures of the driver. */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);

/** pg reports some lost connections only in words. */
const LOST =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end|Client was closed/i;

export function isUnavailable(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined) {
    // 08: connection exception; 28: authorization; 53: insufficient resources (too many connections, disk full);
    // 57P01–03: the server is shutting down, crashed or starting; 3D000: no such database.
    if (NETWORK.has(code) || /^(08|28|53)/.test(code) || /^57P0[123]$/.test(code) || code === '3D000') return true;
  }
  return error instanceof Error && LOST.test(error.message);
}

export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreError) return error;
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === '23505') return new StoreError('conflict', `PostgreSQL: ${message}`, { cause: error });
  // XX001/XX002: data or index corrupted.
  if (code === 'XX001' || code === 'XX002') return new StoreError('corrupt', `PostgreSQL: ${message}`, { cause: error });
  if (isUnavailable(error)) return new StoreError('unavailable', `PostgreSQL is unavailable: ${message}`, { cause: error });
  return error;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

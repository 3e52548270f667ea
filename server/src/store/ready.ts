/** What a readiness probe asks of the database (`Database.ready`, `Database.poolUse`). */

/** One part of the database and whether it answered: `database` (a trivial query), and on PostgreSQL `listener`. */
export interface StoreCheck {
  name: 'database' | 'listener';
  ok: boolean;
  /** Why it is down. */
  error?: string;
}

/** The PostgreSQL pool's connections: all it holds, the idle ones, and the queries waiting for one. */
export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

/** `probe` as a check: `ok` when it resolves within `timeoutMs`, else the failure or the timeout as `error`. */
export async function check(name: StoreCheck['name'], probe: () => Promise<unknown>, timeoutMs: number): Promise<StoreCheck> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([probe(), timeout]);
    return { name, ok: true };
  } catch (error) {
    return { name, ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

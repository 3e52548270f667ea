/** The accounts of a configuration, on the store that keeps them. */
import type { Config } from '../config/config.js';
import { Accounts } from './accounts.js';
import { HashPool } from './hash-pool.js';
import type { ScryptParams } from './passwords.js';
import type { AccountStore } from './store.js';

/** With `passwordHashing` (a server's configuration), scrypt runs on a `HashPool` of its own; without, on libuv's pool. */
export function openAccounts(
  store: AccountStore,
  config: Pick<Config, 'signInIdleMinutes' | 'signInMaxHours'> & Partial<Pick<Config, 'passwordHashing'>>,
  scrypt?: ScryptParams,
): Accounts {
  return new Accounts({
    store,
    signInIdleMs: config.signInIdleMinutes * 60_000,
    signInMaxMs: config.signInMaxHours * 3_600_000,
    ...(scrypt && { scrypt }),
    ...(config.passwordHashing && { hashing: new HashPool(config.passwordHashing) }),
  });
}

/** An account for tests and benches that build their own app: a user with an API token, as every request needs one. */

import type { Accounts } from '../../server/src/accounts/accounts.js';
import { openAccounts } from '../../server/src/accounts/open.js';
import type { AccountStore } from '../../server/src/accounts/store.js';

export async function benchCaller(store: AccountStore): Promise<{ accounts: Accounts; authorization: string }> {
  const accounts = openAccounts(store, { signInIdleMinutes: 60, signInMaxHours: 24 });
  const { user } = await accounts.createUser({ username: 'bench', password: 'bench-password' });
  const { token } = await accounts.createToken(user.id, 'bench');
  return { accounts, authorization: `Bearer ${token}` };
}

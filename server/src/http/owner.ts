/** Whose sessions a request may see: resolved from the user `authenticate` put on the context. */
import type { Context } from 'hono';
import { ALL_OWNERS, type OwnerScope } from '../sessions/sessions.js';
import type { AppEnv } from './deps.js';

export { LOCAL_OWNER } from '../accounts/store.js';

/** The caller's user id: the owner of the sessions they start. */
export const ownerOf = (c: Context): string => {
  const user = (c as Context<AppEnv>).get('user');
  // `authenticate` runs before every operation that needs a user; reaching here without one is a bug.
  if (!user) throw new Error('no authenticated user on the request');
  return user.id;
};

/**
 * What a read by id may see: an admin any session, anyone else their own. Someone else's session
 * then reads as absent, exactly like one that never existed.
 */
export const scopeOf = (c: Context): OwnerScope => {
  const user = (c as Context<AppEnv>).get('user');
  if (!user) throw new Error('no authenticated user on the request');
  return user.role === 'admin' ? ALL_OWNERS : user.id;
};

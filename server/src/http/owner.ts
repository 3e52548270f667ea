import type { Context } from 'hono';

/** Who owns sessions until accounts exist. */
export const LOCAL_OWNER = 'local';

/** The caller's user id. */
export const ownerOf = (_c: Context): string => LOCAL_OWNER;

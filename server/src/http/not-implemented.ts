import type { Context } from 'hono';
import { problem } from './problem.js';

/** A handler for an operation the contract declares but this server does not provide yet. */
export const notImplemented = (capability: string, detail: string) => (c: Context) =>
  problem(c, 501, 'not_implemented', { capability, detail });

/**
 * The debate operations that may answer `202 Accepted` (a `detach` request), typed for a run that is
 * not detached: their `data` is the finished result, never the `DebateAccepted` body. A test that
 * means to detach calls the generated operation itself.
 */

import type { DebateAccepted } from '../../sdk/src/index.js';
import * as sdk from '../../sdk/src/index.js';

type Attached<R> = R extends { data: infer D } ? Omit<R, 'data'> & { data: Exclude<D, DebateAccepted> } : R;
type Op<F extends (options: never) => Promise<unknown>> = (
  options: Parameters<F>[0],
) => Promise<Attached<Awaited<ReturnType<F>>>>;

export const askProvider = sdk.askProvider as Op<typeof sdk.askProvider<false>>;
export const runParallel = sdk.runParallel as Op<typeof sdk.runParallel<false>>;
export const runDeepDebate = sdk.runDeepDebate as Op<typeof sdk.runDeepDebate<false>>;
export const askFollowUp = sdk.askFollowUp as Op<typeof sdk.askFollowUp<false>>;

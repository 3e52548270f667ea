import type { Run } from './runner.js';

/** Debates this page started, by session id: their page shows the same run (and can cancel it) after the id is known. */
export const liveRuns = new Map<string, Run>();

/**
 * Limits kept where every instance of the service sees them: token buckets (sign-in attempts, debate starts) and
 * slots (debates running at once). One process on SQLite keeps them in memory (`memory.ts`); several on one
 * PostgreSQL database count them there (`store/postgres/limits.ts`), so a limit is not multiplied by the instances.
 */
import type { Rate } from '../config/limits.js';

/** Token buckets of one kind, each holding `count` tokens and regaining them evenly over `periodMs`. */
export interface Buckets {
  /** Takes a token for `key`: undefined if there was one, else the whole seconds (at least 1) until there will be. */
  take(key: string): Promise<number | undefined>;
  /** Takes a token whatever the bucket holds, owing at most `count`: the tokens left, negative when owed. */
  charge(key: string): Promise<number>;
  /** The tokens `key` holds now, without taking any; a bucket never used holds `count`. */
  level(key: string): Promise<number>;
  /** Forgets `key`: it starts again full. */
  reset(key: string): Promise<void>;
  /** Gives back a token taken for work that was then not done (at most `count`). */
  refund(key: string): Promise<void>;
}

/** Lets go of a slot; call it once, when the work ends. Never rejects: a slot it fails to free ends with its instance. */
export type Release = () => Promise<void>;

/** Places of one kind, at most `max` per key held at once. */
export interface Slots {
  /** A slot for `key`, or undefined if `key` holds `max` already. */
  acquire(key: string): Promise<Release | undefined>;
  /** How many `key` holds. */
  held(key: string): Promise<number>;
}

export interface LimitStore {
  /** The buckets named `name` (a kind of limit: its keys are apart from other kinds') at `rate`. */
  buckets(name: string, rate: Rate): Buckets;
  /** The slots named `name`, `max` per key. */
  slots(name: string, max: number): Slots;
}

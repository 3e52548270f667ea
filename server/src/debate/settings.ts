/** What the engine is made of: its panel of slots, and the settings every run shares. */
import type { Answer } from '../../../sdk/src/generated/types.gen.js';
import type { SlotConfig } from '../config/slots.js';
import type { AttemptFailure } from '../providers/call.js';
import type { SlotModel } from '../providers/models.js';
import type { Random } from './anonymise.js';
import type { PriceTable } from './pricing.js';

type SlotNumber = Answer['slot'];

/** One slot of the panel: its configuration and its model. */
export interface Slot {
  config: SlotConfig;
  model: SlotModel;
}

export interface EngineSettings {
  panel: readonly Slot[];
  /** Default quorum: how many slots must answer for a round to proceed. */
  quorum: number;
  /** Deadline of one model call, retries included. */
  callTimeoutMs: number;
  maxRetries: number;
  prices: PriceTable;
  /** Who a run belongs to when its options name no owner. */
  owner: string;
  now?: () => number;
  /** Passed to every call; tests use it to skip real waits between retries. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Each failed model call attempt, with the session, round and slot it belongs to: the operator's log. */
  onCallFailed?: (failure: CallFailure) => void;
  /** Shuffles the anonymous labels; `Math.random` by default (tests give a seeded one). */
  random?: Random;
  /** Makes a slot's model for another model of its provider (a request's `models`); without it they are refused. */
  modelFor?: (config: SlotConfig) => SlotModel;
}

/** A failed attempt of one model call, placed in its session. Round 0 is the verdict. */
export interface CallFailure extends AttemptFailure {
  sessionId: string;
  round: number;
  slot: SlotNumber;
  provider: string;
  model: string;
}

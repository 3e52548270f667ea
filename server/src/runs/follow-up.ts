/** How a follow-up's request reads against its parent: the mode it runs in, the fields that belong to it, the panel it inherits. */
import type { Session } from '../../../sdk/src/generated/types.gen.js';
import type { PanelRequest } from '../debate/panel.js';
import type { DeepRequest } from './deep-options.js';
import { RunRefused } from './refused.js';

export interface FollowUpRequest extends DeepRequest {
  question: string;
  mode?: 'single' | 'parallel' | 'deep';
  provider?: string;
}

/** The follow-up fields that belong to one mode; as `POST /ask`, `/consilium` and `/consilium/deep` refuse each other's. */
const MODE_OF_FIELD = {
  provider: 'single',
  slots: 'parallel or deep',
  rounds: 'deep',
  quorum: 'deep',
  earlyStop: 'deep',
  synthesizer: 'deep',
  anonymous: 'deep',
  ranking: 'deep',
  models: 'deep',
  strategy: 'deep',
  agreement: 'deep',
} as const satisfies Record<string, 'single' | 'parallel or deep' | 'deep'>;

type ModeField = keyof typeof MODE_OF_FIELD;

/** The mode a follow-up runs in: the request's, else its parent's (a synthesis is followed by a debate). */
export function followUpMode(parent: Session, request: FollowUpRequest): 'single' | 'parallel' | 'deep' {
  return request.mode ?? (parent.mode === 'synthesis' ? 'deep' : parent.mode);
}

/** Throws `validation_failed` naming each field of `request` that another mode than `mode` takes. */
export function refuseOtherModesFields(request: FollowUpRequest, mode: string): void {
  const misplaced = (Object.keys(MODE_OF_FIELD) as ModeField[]).filter(
    (field) => request[field] !== undefined && !MODE_OF_FIELD[field].split(' or ').includes(mode),
  );
  if (misplaced.length === 0) return;
  throw new RunRefused(
    'validation_failed',
    `${misplaced.map((f) => `\`${f}\``).join(', ')} ${misplaced.length === 1 ? 'does' : 'do'} not apply to a ${mode} follow-up.`,
    misplaced.map((field) => ({
      path: `body.${field}`,
      message: `"${field}" is for a ${MODE_OF_FIELD[field]} follow-up; this one is ${mode}${request.mode ? '' : ' (the session’s mode)'}.`,
      code: 'unrecognized_keys',
    })),
  );
}

/** A deep follow-up's panel: each field the request leaves out is the parent's (a deep parent's recorded choice). */
export function inheritPanel<T extends PanelRequest>(parent: Session, request: T): T {
  const from = parent.mode === 'deep' ? parent.panel : undefined;
  if (!from) return request;
  return {
    ...request,
    ...(request.slots === undefined && { slots: from.slots }),
    ...(request.synthesizer === undefined && from.synthesizer !== undefined && { synthesizer: from.synthesizer }),
    ...(request.anonymous === undefined && { anonymous: from.anonymous }),
    ...(request.ranking === undefined && { ranking: from.ranking }),
    ...(request.models === undefined && from.models && { models: from.models }),
  };
}

/**
 * A deep follow-up's strategy: the request's if given, else its parent's (an adaptive parent's follow-up votes first too).
 * The threshold is the request's, else the parent's when both are adaptive.
 */
export function inheritStrategy<T extends DeepRequest>(parent: Session, request: T): T {
  const from = parent.mode === 'deep' ? parent.adaptive : undefined;
  const strategy = request.strategy ?? (from ? 'adaptive' : undefined);
  if (strategy !== 'adaptive' || !from) return request;
  return { ...request, strategy, agreement: request.agreement ?? from.threshold };
}

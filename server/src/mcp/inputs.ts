/**
 * Each tool's arguments: the contract's own request schemas (so a tool refuses exactly what its HTTP operation
 * refuses, with the same limits and messages), less what has no meaning over MCP (`detach`: a tool call is attached
 * to its request, and cancelling the call cancels the run).
 */
import { z } from 'zod';
import {
  zAskRequest,
  zDeepRequest,
  zFollowUpRequest,
  zListSessionsQuery,
  zParallelRequest,
  zProviderId,
  zSessionId,
  zSlotNumber,
  zSynthesizeRequest,
} from '../generated/schemas/zod.gen.js';

const NO_DETACH = { detach: true } as const;

export const consultInput = zDeepRequest.omit(NO_DETACH);

export const askInput = zAskRequest.omit(NO_DETACH).extend({
  slot: zSlotNumber.optional().describe('The slot to ask; the panel’s first by default.'),
  provider: zProviderId.optional().describe('Or the provider of the slot to ask.'),
});

export const parallelInput = zParallelRequest.omit(NO_DETACH);

export const synthesizeInput = zSynthesizeRequest;

export const getSessionInput = z.strictObject({ sessionId: zSessionId });

export const listSessionsInput = zListSessionsQuery.omit({ owner: true }).strict();

/** With `question`, a follow-up in the session's thread (the follow-up's own fields apply); without, an interrupted run continued. */
export const continueSessionInput = zFollowUpRequest
  .omit(NO_DETACH)
  .partial({ question: true })
  .extend({ sessionId: zSessionId });

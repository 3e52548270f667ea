/** What of a deep request the engine takes: the panel and the debate's own options, each only when given. */
import type { DeepOptions } from '../debate/engine.js';
import type { PanelRequest } from '../debate/panel.js';

export interface DeepRequest extends PanelRequest {
  rounds?: number;
  quorum?: number;
  budget?: { maxTokens?: number; maxCostUsd?: number };
  earlyStop?: boolean;
  strategy?: 'debate' | 'adaptive';
  agreement?: number;
  tags?: string[];
}

export function deepOptions(request: DeepRequest): DeepOptions {
  const panel: PanelRequest = {
    ...(request.slots !== undefined && { slots: request.slots }),
    ...(request.synthesizer !== undefined && { synthesizer: request.synthesizer }),
    ...(request.anonymous !== undefined && { anonymous: request.anonymous }),
    ...(request.ranking !== undefined && { ranking: request.ranking }),
    ...(request.models !== undefined && { models: request.models }),
  };
  return {
    ...(request.earlyStop !== undefined && { earlyStop: request.earlyStop }),
    ...(request.rounds !== undefined && { rounds: request.rounds }),
    ...(request.quorum !== undefined && { quorum: request.quorum }),
    ...(request.budget !== undefined && { budget: request.budget }),
    ...(request.strategy !== undefined && { strategy: request.strategy }),
    ...(request.agreement !== undefined && { agreement: request.agreement }),
    ...(request.tags !== undefined && { tags: request.tags }),
    panel,
  };
}

import { publicSlot } from '../config/slots.js';
import type { Handlers } from '../generated/routes.js';
import type { AppDeps, AppEnv } from './env.js';

export function metaHandlers(deps: AppDeps): Pick<Handlers<AppEnv>, 'getHealth' | 'listProviders'> {
  const startedAt = deps.startedAt ?? Date.now();
  return {
    getHealth: (c) =>
      c.json({ status: 'ok' as const, version: deps.version, uptimeSeconds: (Date.now() - startedAt) / 1000 }, 200),
    listProviders: (c) =>
      c.json({ synthesizerSlot: 1, quorum: deps.config.quorum, slots: deps.config.slots.map(publicSlot) }, 200),
  };
}

import type { SlotHealth } from '../../../sdk/src/generated/types.gen.js';
import { publicSlot } from '../config/slots.js';
import type { Handlers } from '../generated/routes.js';
import { checkSlots, type HealthOptions } from '../providers/health.js';
import type { AppDeps, AppEnv } from './deps.js';

export function metaHandlers(deps: AppDeps): Pick<Handlers<AppEnv>, 'getHealth' | 'listProviders'> {
  const startedAt = deps.startedAt ?? Date.now();
  const options: HealthOptions = { env: deps.env ?? process.env };
  // Requests that arrive while a check runs share it, so a burst of callers sends each provider one request.
  let running: Promise<SlotHealth[]> | undefined;
  const check = () => {
    running ??= checkSlots(deps.config.slots, options).finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    getHealth: (c) =>
      c.json({ status: 'ok' as const, version: deps.version, uptimeSeconds: (Date.now() - startedAt) / 1000 }, 200),
    listProviders: async (c) => {
      const slots = deps.config.slots.map(publicSlot);
      if (c.req.valid('query').check) {
        const health = await check();
        slots.forEach((slot, i) => {
          slot.health = health[i]!;
        });
      }
      const wikis = deps.wikis && deps.wikis.names.length > 0 ? await deps.wikis.info(c.req.valid('query').check) : undefined;
      return c.json({ synthesizerSlot: 1, quorum: deps.config.quorum, slots, ...(wikis && { wikis }) }, 200);
    },
  };
}

// Runs hey-api's jobs off the main thread, so the main thread can emit the routes, the wiki modules
// and openapi-typescript's `paths` meanwhile (importing hey-api alone takes ~1 s of CPU). Plain
// JavaScript: a worker does not inherit tsx's loader.
import { parentPort, workerData } from 'node:worker_threads';
import { createClient } from '@hey-api/openapi-ts';

/**
 * hey-api's zod output ignores `additionalProperties: false`; such objects become `z.strictObject`
 * (in zod and zod/mini alike), so the server refuses unknown fields (a misspelt option) instead of
 * dropping them. Added here: a function cannot cross into a worker in `workerData`.
 */
const closedObjects = (ctx) => {
  const extra = ctx.schema.additionalProperties;
  const closed = extra === false || (typeof extra === 'object' && extra.type === 'never');
  return closed ? ctx.$(ctx.symbols.z).attr('strictObject').call(ctx.nodes.shape(ctx)) : undefined;
};
for (const config of workerData.configs) {
  for (const plugin of config.plugins) {
    if (typeof plugin === 'object' && plugin.name === 'zod') plugin['~resolvers'] = { object: closedObjects };
  }
}

try {
  // One job at a time: hey-api's jobs share state, and the second one reuses the first one's warm-up.
  for (const config of workerData.configs) await createClient(config);
  parentPort.postMessage({ ok: true });
} catch (error) {
  parentPort.postMessage({ ok: false, error: String(error?.stack ?? error) });
}

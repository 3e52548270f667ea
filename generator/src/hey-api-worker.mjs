// Runs hey-api's jobs off the main thread, so the main thread can parse the contract and emit the
// routes, the wiki modules and openapi-typescript's `paths` meanwhile. The worker starts importing
// hey-api (~1 s of CPU, most of its time) as soon as it is spawned, before the contract is parsed,
// and receives its jobs by message. Plain JavaScript, started without tsx's loader (see sdk.ts).
import { parentPort } from 'node:worker_threads';

const heyApi = import('@hey-api/openapi-ts');
heyApi.catch(() => {}); // reported when the jobs arrive

/**
 * hey-api's zod output ignores `additionalProperties: false`; such objects become `z.strictObject`
 * (in zod and zod/mini alike), so the server refuses unknown fields (a misspelt option) instead of
 * dropping them. Added here: a function cannot cross into a worker in a message.
 */
const closedObjects = (ctx) => {
  const extra = ctx.schema.additionalProperties;
  const closed = extra === false || (typeof extra === 'object' && extra.type === 'never');
  return closed ? ctx.$(ctx.symbols.z).attr('strictObject').call(ctx.nodes.shape(ctx)) : undefined;
};

parentPort.once('message', async ({ configs }) => {
  try {
    for (const config of configs) {
      for (const plugin of config.plugins) {
        if (typeof plugin === 'object' && plugin.name === 'zod') plugin['~resolvers'] = { object: closedObjects };
      }
    }
    const { createClient } = await heyApi;
    // One job at a time: hey-api's jobs share state, and the second one reuses the first one's warm-up.
    for (const config of configs) await createClient(config);
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error?.stack ?? error) });
  }
});

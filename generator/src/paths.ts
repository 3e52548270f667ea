import { createRequire } from 'node:module';
import type * as OpenapiTS from 'openapi-typescript';
import { doNotEditHeader } from './contract.js';

/**
 * openapi-typescript's independent reading of the contract. Type tests compare the server's
 * and the SDK's types against these `paths`, so a bug in either generator cannot hide.
 *
 * Loaded on first use, through `require()` (its CommonJS build): not at import, so the hey-api worker
 * is spawned first; and not by `import`, because Node would then scan TypeScript's 9 MB CommonJS
 * source for its export names (cjs-module-lexer, ~0.2 s of the main thread's time).
 */
export async function generatePathTypes(contract: object): Promise<string> {
  const { default: openapiTS, astToString } = createRequire(import.meta.url)('openapi-typescript') as typeof OpenapiTS;
  const ast = await openapiTS(contract as Parameters<typeof openapiTS>[0], { exportType: true });
  return `${doNotEditHeader('openapi/openapi.yaml via openapi-typescript').join('\n')}\n\n${astToString(ast)}`;
}

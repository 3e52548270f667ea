import { createClient } from '@hey-api/openapi-ts';
import { doNotEditHeader } from './contract.js';

/** The SDK's client, types and zod schemas, via hey-api, into `<outDir>`. */
export async function generateSdk(contractFile: string, outDir: string): Promise<void> {
  await createClient({
    input: contractFile,
    output: {
      path: outDir,
      header: doNotEditHeader('openapi/openapi.yaml via @hey-api/openapi-ts'),
      // Explicit, so output does not depend on which tsconfig hey-api happens to find.
      module: { extension: '.js' },
    },
    plugins: [
      '@hey-api/client-fetch',
      '@hey-api/typescript',
      {
        name: 'zod',
        metadata: true,
        // hey-api's zod output ignores `additionalProperties: false`; such objects become
        // `z.strictObject`, so the server refuses unknown fields (a misspelt option) instead of dropping them.
        '~resolvers': {
          object: (ctx) => {
            const extra = ctx.schema.additionalProperties;
            const closed = extra === false || (typeof extra === 'object' && extra.type === 'never');
            return closed ? ctx.$(ctx.symbols.z).attr('strictObject').call(ctx.nodes.shape(ctx)) : undefined;
          },
        },
      },
      // Responses (and SSE events) are validated; requests are not: the server is the one authority on
      // input and answers every bad request with a problem listing each field.
      { name: '@hey-api/sdk', validator: { request: false, response: true } },
    ],
    logs: { level: 'silent' },
  });
}

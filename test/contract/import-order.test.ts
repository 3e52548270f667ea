import { expect, it } from 'vitest';

// zod 4 gives `.openapi()` only to schemas created after @hono/zod-openapi loads; the generated
// routes must not need it, so a process that loads the SDK's schemas first still serves the contract.
it('serves the contract when the SDK schemas load before the server', async () => {
  const zod = await import('../../sdk/src/generated/zod.gen.js');
  expect('openapi' in zod.zProblem).toBe(false);
  const { startServer } = await import('../support/server.js');
  const server = await startServer();
  try {
    const res = await server.fetch(`/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { components: { schemas: Record<string, unknown> } };
    expect(Object.keys(doc.components.schemas)).toContain('Problem');
  } finally {
    await server.close();
  }
});

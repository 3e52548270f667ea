import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { OpenApiDocument } from './contract.js';
import { emitRoutes, listOperations } from './routes.js';

const small = (): OpenApiDocument => parse(readFileSync(new URL('../test/fixtures/small.yaml', import.meta.url), 'utf8'));

describe('emitRoutes', () => {
  it('matches the golden output for a small contract', async () => {
    await expect(emitRoutes(small(), './zod.gen.js')).toMatchFileSnapshot('../test/__snapshots__/small.routes.ts.snap');
  });

  it('rejects what it cannot bind faithfully, naming the place', () => {
    const withRefParam = small();
    (withRefParam.paths['/things/{thingId}']!.post!.parameters as unknown[]).push({ $ref: '#/components/parameters/X' });
    expect(() => emitRoutes(withRefParam, './z.js')).toThrow(
      'updateThing: $ref parameters are not supported; write parameters inline',
    );

    const withPathParams = small();
    withPathParams.paths['/things/{thingId}']!.parameters = [] as never;
    expect(() => emitRoutes(withPathParams, './z.js')).toThrow('/things/{thingId}: path-level parameters are not supported');

    const anonymous = small();
    delete anonymous.paths['/things/{thingId}']!.post!.operationId;
    expect(() => listOperations(anonymous)).toThrow('POST /things/{thingId} has no operationId');
  });
});

describe('operationSecurity', () => {
  it("takes each operation's own security, or else the document's", () => {
    const out = emitRoutes(small(), './z.js');
    expect(out).toContain('listThings: { method: "GET", path: "/things", security: [{"bearerAuth":[]}] },');
    expect(out).toContain('clearThings: { method: "DELETE", path: "/things", security: [{"bearerAuth":["admin"]}] },');
    expect(out).toContain('updateThing: { method: "POST", path: "/things/{thingId}", security: [] },');
  });
});

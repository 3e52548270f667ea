import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../generator/src/contract.js';
import { listOperations } from '../../generator/src/routes.js';
import { type RunningServer, startServer } from '../support/server.js';
import { diffDocuments } from './canonical.js';

let server: RunningServer;
let served: Record<string, unknown>;

beforeAll(async () => {
  server = await startServer();
  const res = await server.fetch(`/openapi.json`);
  expect(res.status).toBe(200);
  served = (await res.json()) as Record<string, unknown>;
});
afterAll(() => server.close());

describe('the served document', () => {
  it('equals openapi/openapi.yaml: every path, operation, parameter, schema and response', () => {
    // `servers` alone differs, on purpose: the contract names npm start's default, the served copy this server.
    expect(diffDocuments({ ...loadContract(), servers: served.servers } as ReturnType<typeof loadContract>, served)).toEqual([]);
    expect(diffDocuments(loadContract(), served)).toEqual([
      '/servers/0/description: expected "Local server started by `npm start`.", served "The server this document was served from."',
      `/servers/0/url: expected "http://127.0.0.1:8787", served ${JSON.stringify(server.baseUrl)}`,
    ]);
  });

  it('names the server it is served from', () => {
    expect(served.servers).toEqual([{ url: server.baseUrl, description: 'The server this document was served from.' }]);
  });

  it('declares every operation of the contract', () => {
    const paths = served.paths as Record<string, Record<string, { operationId: string }>>;
    const servedIds = Object.values(paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    const contractIds = listOperations(loadContract()).map((op) => op.operationId);
    expect(servedIds.sort()).toEqual(contractIds.sort());
    expect(contractIds).toContain('streamDeepDebate');
    expect(contractIds.length).toBeGreaterThan(10);
  });
});

describe('the drift check can fail', () => {
  const altered = (edit: (doc: ReturnType<typeof loadContract>) => void) => {
    const doc = { ...loadContract(), servers: served.servers } as ReturnType<typeof loadContract>;
    edit(doc);
    return diffDocuments(doc, served);
  };
  const schema = (doc: ReturnType<typeof loadContract>, name: string) =>
    doc.components.schemas[name] as { properties: Record<string, Record<string, unknown>>; required: string[] };

  it('on a changed bound', () => {
    const diff = altered((doc) => {
      schema(doc, 'DeepRequest').properties.rounds!.maximum = 6;
    });
    expect(diff).toEqual(['/components/schemas/DeepRequest/properties/rounds/maximum: expected 6, served 5']);
  });

  it('on a field made optional', () => {
    const diff = altered((doc) => {
      const answer = schema(doc, 'Answer');
      answer.required = answer.required.filter((r) => r !== 'text');
    });
    expect(diff).toHaveLength(1);
    expect(diff[0]).toMatch(/^\/components\/schemas\/Answer\/required/);
  });

  it('on a removed operation, a renamed parameter and a new response', () => {
    const diff = altered((doc) => {
      delete doc.paths['/auth/logout'];
      const listSessions = doc.paths['/sessions']!.get as { parameters: { name: string }[]; responses: Record<string, unknown> };
      listSessions.parameters[0]!.name = 'after';
      listSessions.responses['409'] = { $ref: '#/components/responses/NotFound' };
    });
    expect(diff.some((d) => d.startsWith('/paths/~1auth~1logout: expected undefined, served {"post":'))).toBe(true);
    expect(diff.some((d) => d.startsWith('/paths/~1sessions/get/parameters/0/name: expected "after"'))).toBe(true);
    expect(diff.some((d) => d.startsWith('/paths/~1sessions/get/responses/409'))).toBe(true);
  });
});

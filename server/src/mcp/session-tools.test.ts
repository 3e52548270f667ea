/**
 * The history's tools and the resources, and `wiki_query` against a loopback stand-in of api.php (which counts every
 * request it gets), with the official MCP client over Streamable HTTP.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, textOf } from '../../../test/support/mcp.js';
import { type RunningServer, startServer } from '../../../test/support/server.js';
import type { Outcome } from './outcome.js';

let wiki: Server;
const asked: URLSearchParams[] = [];
let server: RunningServer;
let client: Client;

beforeAll(async () => {
  wiki = createServer((req, res) => {
    const params = new URL(req.url!, 'http://wiki').searchParams;
    asked.push(params);
    const query = params.get('meta')?.includes('siteinfo')
      ? {
          general: { sitename: 'Stand-in', generator: 'MediaWiki 1.39.0' },
          namespaces: { 0: { id: 0, name: '' } },
          extensions: [],
        }
      : { allpages: [{ pageid: 1, ns: 0, title: 'Foo' }] };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ batchcomplete: true, query }));
  });
  await new Promise<void>((r) => wiki.listen(0, '127.0.0.1', r));
  const api = `http://127.0.0.1:${(wiki.address() as AddressInfo).port}/api.php`;
  server = await startServer({ CONSILIUM_WIKIS: JSON.stringify({ standin: { api } }) });
  client = await connectMcp(server.baseUrl, server.token);
});
afterAll(async () => {
  await client?.close();
  await server?.close();
  wiki?.close();
});

describe('get_session, list_sessions and the resources', () => {
  it('reads a session, finds it by its question, and exports it as Markdown', async () => {
    const made = (await client.callTool({ name: 'ask', arguments: { question: 'Which wombat digs best?' } }))
      .structuredContent as Outcome;
    const got = await client.callTool({ name: 'get_session', arguments: { sessionId: made.sessionId } });
    expect(got.structuredContent).toMatchObject({
      sessionId: made.sessionId,
      question: 'Which wombat digs best?',
      mode: 'single',
    });
    const missing = await client.callTool({ name: 'get_session', arguments: { sessionId: 'ses_0000000000nothere' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^not_found: .*\n- sessionId: not found/);
    const found = (await client.callTool({ name: 'list_sessions', arguments: { q: 'wombat' } })).structuredContent as {
      items: { id: string }[];
    };
    expect(found.items.map((s) => s.id)).toEqual([made.sessionId]);
    const none = (await client.callTool({ name: 'list_sessions', arguments: { q: 'platypus' } })).structuredContent as {
      items: unknown[];
    };
    expect(none.items).toEqual([]);
    const { contents } = await client.readResource({ uri: `consilium://sessions/${made.sessionId}` });
    expect(contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    const markdown = (contents[0] as { text: string }).text;
    expect(markdown).toContain('Which wombat digs best?');
    const md = await (await server.fetch(`/sessions/${made.sessionId}/export/markdown`)).text();
    expect(markdown).toBe(md);
    await expect(client.readResource({ uri: 'consilium://sessions/ses_0000000000nothere' })).rejects.toThrow(/No session/);
    const sources = JSON.parse(
      ((await client.readResource({ uri: 'consilium://sources' })).contents[0] as { text: string }).text,
    );
    expect(sources.wikis.map((w: { name: string }) => w.name)).toEqual(['standin']);
    expect(sources.slots).toHaveLength(5);
  });
});

describe('wiki_query', () => {
  it('runs a query built by the typed builders through the source’s client', async () => {
    const result = await client.callTool({
      name: 'wiki_query',
      arguments: { source: 'standin', list: [{ module: 'allpages', params: { prefix: 'Fo', limit: 5 } }] },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      params: expect.objectContaining({ list: 'allpages', apprefix: 'Fo', aplimit: '5' }),
      query: { allpages: [{ title: 'Foo' }] },
    });
  });

  it('refuses a parameter MediaWiki would refuse, naming it and the code, before any request is sent', async () => {
    const before = asked.length;
    const result = await client.callTool({
      name: 'wiki_query',
      arguments: { source: 'standin', list: [{ module: 'allpages', params: { limit: 'lots' } }] },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^badinteger: .*\n- aplimit: .*\(badinteger\)/s);
    const wrongGroup = await client.callTool({
      name: 'wiki_query',
      arguments: { source: 'standin', list: [{ module: 'revisions' }] },
    });
    expect(textOf(wrongGroup)).toMatch(/- list\[0\]\.module: "revisions" is no list module/);
    const unknown = await client.callTool({
      name: 'wiki_query',
      arguments: { source: 'elsewhere', meta: [{ module: 'siteinfo' }] },
    });
    expect(textOf(unknown)).toMatch(/^unknown_wiki_source: .*configured: standin/);
    expect(asked.length).toBe(before);
  });
});

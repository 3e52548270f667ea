/**
 * Tool calls in a critique round against the live MediaWiki, from loopback models speaking the OpenAI
 * chat-completions and the Anthropic Messages tool-calling wire formats. The model first asks `search_wiki` with a
 * `limit` the typed builders refuse (out of range, or not an integer): the tool's error carries MediaWiki's own code
 * and no request reaches the wiki; it corrects the search, asks `read_page` for a title the wiki refuses
 * (`invalidtitle`), then reads a page that the retrieval did not bring and cites it; the citation verifies, the page
 * joins the session's sources (`retrievedBy: tool`), and the lookups say who read what.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../sdk/src/index.js';
import { mediawiki, seedPages, startMediaWiki } from '../support/mediawiki.js';
import { type RunningServer, startServer } from '../support/server.js';

const EXTRA = 'Grounding Rollback Runbook';
const EXTRA_TEXT = 'Rollbacks of the zebrafish service take four minutes with the blue-green switch.';

type ToolCall = { tool: 'search_wiki' | 'read_page'; input: Record<string, unknown> };

/** The model's tool calls in a critique round, one per reply, by how many results it has had. */
const callsWith = (badLimit: unknown): ToolCall[] => [
  // Refused by the builders before any request (the wiki never sees this query).
  { tool: 'search_wiki', input: { query: 'zebrafish builders-refuse-this', limit: badLimit } },
  // Corrected.
  { tool: 'search_wiki', input: { query: 'zebrafish rollback', limit: 1 } },
  // Refused by the wiki itself.
  { tool: 'read_page', input: { title: 'Bad|title' } },
  { tool: 'read_page', input: { title: EXTRA } },
];

interface ChatRequest {
  tools?: unknown[];
  messages: { role: string; content?: unknown }[];
}

/** Replies by what the conversation holds: tool calls while tools are offered, then the answer. */
async function toolModel(calls: readonly ToolCall[]): Promise<{ baseUrl: string; requests: ChatRequest[]; close(): void }> {
  const requests: ChatRequest[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw) as ChatRequest;
      requests.push(body);
      const id = 'chatcmpl-tools';
      const chunk = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'tools-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '' }));
      const results = body.messages.filter((m) => m.role === 'tool');
      const step = body.tools?.length ? calls[results.length] : undefined;
      if (step) {
        res.write(
          chunk({
            tool_calls: [
              {
                index: 0,
                id: `call_${results.length}`,
                type: 'function',
                function: { name: step.tool, arguments: JSON.stringify(step.input) },
              },
            ],
          }),
        );
        res.write(chunk({}, 'tool_calls'));
      } else {
        const text = results.length > 0 ? `Rollbacks are quick: "${EXTRA_TEXT}" [[${EXTRA}]]` : 'Deploy on Tuesdays.';
        res.write(chunk({ content: text }));
        res.write(chunk({}, 'stop'));
      }
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'tools-1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, close: () => server.close() };
}

interface MessagesRequest {
  tools?: unknown[];
  messages: { role: string; content: string | { type: string }[] }[];
}

/** The same conversation on Anthropic's Messages wire format: `tool_use` blocks with `input_json_delta`, then text. */
async function anthropicToolModel(
  calls: readonly ToolCall[],
): Promise<{ baseUrl: string; requests: MessagesRequest[]; close(): void }> {
  const requests: MessagesRequest[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw) as MessagesRequest;
      requests.push(body);
      const event = (name: string, data: object) =>
        res.write(`event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      event('message_start', {
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 10, output_tokens: 0 },
        },
      });
      const results = body.messages.flatMap((m) =>
        Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : [],
      );
      const step = body.tools?.length ? calls[results.length] : undefined;
      if (step) {
        event('content_block_start', {
          index: 0,
          content_block: { type: 'tool_use', id: `toolu_${results.length}`, name: step.tool, input: {} },
        });
        event('content_block_delta', {
          index: 0,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(step.input) },
        });
        event('content_block_stop', { index: 0 });
        event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } });
      } else {
        const text = results.length > 0 ? `Rollbacks are quick: "${EXTRA_TEXT}" [[${EXTRA}]]` : 'Deploy on Tuesdays.';
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
        event('content_block_stop', { index: 0 });
        event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
      }
      event('message_stop', {});
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, close: () => server.close() };
}

const WIRES = [
  {
    name: 'OpenAI-compatible chat completions',
    slot: 2,
    // Out of range: MediaWiki would clamp it with an `outofrange` warning; a tool call's build is strict.
    badLimit: 0,
    refusal: 'outofrange',
    start: () => toolModel(callsWith(0)),
    env: (baseUrl: string) => ({
      CONSILIUM_SLOT2_PROVIDER: 'tools',
      CONSILIUM_SLOT2_MODEL: 'tools-1',
      CONSILIUM_SLOT2_BASE_URL: baseUrl,
    }),
    toolResults: (r: { messages: { role: string; content?: unknown }[] }) => r.messages.filter((m) => m.role === 'tool'),
  },
  {
    name: 'Anthropic Messages',
    slot: 1,
    badLimit: 2.5,
    refusal: 'badinteger',
    start: () => anthropicToolModel(callsWith(2.5)),
    env: (baseUrl: string) => ({ ANTHROPIC_API_KEY: 'test-key', CONSILIUM_SLOT1_BASE_URL: baseUrl }),
    toolResults: (r: { messages: { role: string; content?: unknown }[] }) =>
      r.messages.flatMap((m) =>
        Array.isArray(m.content) ? m.content.filter((b: { type: string }) => b.type === 'tool_result') : [],
      ),
  },
] as const;

describe.skipIf(!mediawiki.available).each(WIRES)('wiki tools in a critique round ($name)', (wire) => {
  let server: RunningServer;
  let model: {
    baseUrl: string;
    requests: { tools?: unknown[]; messages: { role: string; content?: unknown }[] }[];
    close(): void;
  };
  let proxy: Server;
  const sent: string[] = [];

  beforeAll(async () => {
    const wiki = await startMediaWiki();
    await seedPages({
      'Grounding Deploy Policy': 'Production deploys of the zebrafish service happen on Tuesdays only.',
      [EXTRA]: EXTRA_TEXT,
    });
    model = await wire.start();
    // Every request the source sends the wiki, recorded on the way (method, URL and body).
    proxy = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        sent.push(`${req.method} ${req.url} ${body}`);
        const headers: Record<string, string> = {};
        for (const h of ['user-agent', 'content-type', 'cookie']) if (req.headers[h]) headers[h] = String(req.headers[h]);
        const upstream = await fetch(`${wiki.server}${req.url}`, {
          method: req.method!,
          headers,
          ...(req.method === 'POST' && { body }),
        });
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await upstream.arrayBuffer()));
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const api = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api.php`;
    server = await startServer({
      // One page before round 1 (the policy, not the runbook): the runbook comes only through a tool.
      CONSILIUM_WIKIS: JSON.stringify({ 'team-wiki': { api, pages: 1, requestsPerRound: 4 } }),
      ...wire.env(model.baseUrl),
      CONSILIUM_MAX_RETRIES: '0',
    });
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    model?.close();
    proxy?.close();
  });

  it('a refused request comes back as the tool’s error with MediaWiki’s code, is corrected, and the page read is cited', async () => {
    const res = await server.fetch('/consilium/deep', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        question: 'When should we deploy the zebrafish service?',
        rounds: 3,
        grounding: { source: 'team-wiki' },
      }),
    });
    const session = (await res.json()) as Session;
    const g = session.grounding!;
    // Round 1 offered no tools; round 2 did.
    expect(model.requests[0]!.tools).toBeUndefined();
    // The conversation of round 2 as the model saw it last: one result per call, in order.
    const toolResults = wire.toolResults(model.requests.findLast((r) => wire.toolResults(r).length > 0)!);
    expect(toolResults).toHaveLength(4);
    // The builders' refusal: MediaWiki's own code, as the tool's error (the model went on: it is not an exception).
    expect(JSON.stringify(toolResults[0])).toContain(wire.refusal);
    expect(JSON.stringify(toolResults[1])).not.toMatch(/outofrange|badinteger|error/);
    expect(JSON.stringify(toolResults[2])).toMatch(/invalidtitle/);
    // Refused before any HTTP: the wiki never got that search; it got the corrected one.
    expect(sent.filter((r) => r.includes('builders-refuse-this'))).toEqual([]);
    expect(sent.filter((r) => r.includes('rollback'))).toHaveLength(1);
    const lookups = g.lookups.filter((l) => l.slot === wire.slot);
    expect(lookups.map((l) => [l.round, l.tool, l.input, l.ok, l.error])).toEqual([
      [2, 'search_wiki', 'zebrafish builders-refuse-this', false, wire.refusal],
      [2, 'search_wiki', 'zebrafish rollback', true, undefined],
      [2, 'read_page', 'Bad|title', false, 'invalidtitle'],
      [2, 'read_page', EXTRA, true, undefined],
    ]);
    const runbook = g.pages.find((p) => p.title === EXTRA)!;
    expect(runbook).toMatchObject({ retrievedBy: 'tool', text: EXTRA_TEXT });
    expect(g.citations.filter((c) => c.slot === wire.slot && c.round === 2)).toEqual([
      { round: 2, slot: wire.slot, ref: EXTRA, quote: EXTRA_TEXT, verified: true, source: runbook.n },
    ]);
    const answer = session.rounds[1]!.answers.find((a) => a.slot === wire.slot)!;
    expect(answer.error).toBeUndefined();
    // Usage counts every step of the call.
    expect(answer.usage.totalTokens).toBe(75);
  });
});

describe.skipIf(!mediawiki.available)('the wiki going down mid-debate', () => {
  it('a tool call that finds the wiki gone is the tool’s error; the grounding turns partial and the debate goes on', {
    timeout: 120_000,
  }, async () => {
    const wiki = await startMediaWiki();
    await seedPages({ 'Grounding Deploy Policy': 'Production deploys of the zebrafish service happen on Tuesdays only.' });
    const model = await toolModel([
      { tool: 'read_page', input: { title: 'Bad|title' } },
      { tool: 'read_page', input: { title: EXTRA } },
    ]);
    // A proxy to the wiki that goes down once a model has been offered tools: after the retrieval, before round 2's calls.
    const proxy = createServer(async (req, res) => {
      if (model.requests.some((r) => r.tools?.length)) return req.socket.destroy();
      const upstream = await fetch(`${wiki.server}${req.url}`, { headers: { 'user-agent': req.headers['user-agent'] ?? '' } });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const api = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api.php`;
    const server = await startServer({
      CONSILIUM_WIKIS: JSON.stringify({ flaky: { api, pages: 1, requestsPerRound: 2 } }),
      CONSILIUM_SLOT2_PROVIDER: 'tools',
      CONSILIUM_SLOT2_MODEL: 'tools-1',
      CONSILIUM_SLOT2_BASE_URL: model.baseUrl,
      CONSILIUM_MAX_RETRIES: '0',
    });
    try {
      const res = await server.fetch('/consilium/deep', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          question: 'When should we deploy the zebrafish service?',
          rounds: 3,
          grounding: { source: 'flaky' },
        }),
      });
      const session = (await res.json()) as Session;
      expect(session.status).not.toBe('failed');
      expect(session.rounds).toHaveLength(3);
      const g = session.grounding!;
      expect(g.pages).toHaveLength(1);
      expect(g.status).toBe('partial');
      expect(g.note).toMatch(/could not be read in round 2 \(network\)/);
      expect(g.lookups.filter((l) => l.slot === 2).map((l) => [l.ok, l.error])).toEqual([
        [false, 'network'],
        [false, 'network'],
      ]);
      const toolResults = model.requests.flatMap((r) => r.messages.filter((m) => m.role === 'tool'));
      expect(JSON.stringify(toolResults[0])).toMatch(/network/);
    } finally {
      await server.close();
      proxy.close();
      model.close();
    }
  });
});

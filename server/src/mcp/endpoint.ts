/**
 * `/mcp`: the MCP server over Streamable HTTP (the SDK's web-standard transport, so it needs no Node request
 * objects), one MCP session per `initialize`, bound to the user whose token opened it. Stateful, so a client's
 * `notifications/cancelled` reaches the tool call it names and cancels its run. The caller is authenticated before
 * this is reached; a request for another user's session reads as a session that does not exist.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Runs } from '../runs/runs.js';
import type { Admit, McpCaller } from './context.js';
import { createMcpServer } from './server.js';

export interface McpEndpointOptions {
  runs: Runs;
  version: string;
  /** The session's page in the web UI, for a request from `origin`. */
  link?: (origin: string, sessionId: string) => string;
  /** How long an MCP session may stay unused before it is closed. 1 hour by default. */
  idleMs?: number;
  /** The limits a run of a tool passes, as the HTTP operations' do. */
  admit?: Admit;
}

interface Open {
  transport: WebStandardStreamableHTTPServerTransport;
  owner: string;
  usedAt: number;
}

const SESSION_HEADER = 'mcp-session-id';

/** A JSON-RPC error outside any request (the transport's own shape for its refusals). */
const rpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });

export const webLink = (origin: string, sessionId: string) => `${origin}/#/sessions/${encodeURIComponent(sessionId)}`;

export class McpEndpoint {
  readonly #open = new Map<string, Open>();
  readonly #options: McpEndpointOptions;
  readonly #sweep: ReturnType<typeof setInterval>;

  constructor(options: McpEndpointOptions) {
    this.#options = options;
    const idleMs = options.idleMs ?? 3_600_000;
    this.#sweep = setInterval(() => this.#closeIdle(idleMs), Math.min(idleMs, 60_000));
    this.#sweep.unref();
  }

  get sessions(): number {
    return this.#open.size;
  }

  /** Answers one request to `/mcp` from `caller`, whose links point at `origin`. */
  async handle(request: Request, caller: McpCaller, origin: string): Promise<Response> {
    const id = request.headers.get(SESSION_HEADER);
    if (id !== null) {
      const open = this.#open.get(id);
      // Another user's session is one that does not exist, for them.
      if (!open || open.owner !== caller.owner) return rpcError(404, -32001, 'Session not found');
      open.usedAt = Date.now();
      return open.transport.handleRequest(request);
    }
    if (request.method !== 'POST') return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return rpcError(400, -32700, 'Parse error: the body is not JSON');
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((m) => isInitializeRequest(m))) {
      return rpcError(400, -32000, 'Bad Request: no Mcp-Session-Id, and not an initialize request');
    }
    const transport = await this.#start(caller, origin);
    return transport.handleRequest(request, { parsedBody: body });
  }

  /** Closes every session (the server is stopping). */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([...this.#open.values()].map((o) => o.transport.close()));
    this.#open.clear();
  }

  async #start(caller: McpCaller, origin: string): Promise<WebStandardStreamableHTTPServerTransport> {
    const link = this.#options.link ?? webLink;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#open.set(id, { transport, owner: caller.owner, usedAt: Date.now() });
      },
      onsessionclosed: (id) => {
        this.#open.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#open.delete(transport.sessionId);
    };
    const server = createMcpServer(
      {
        runs: this.#options.runs,
        caller,
        link: (id) => link(origin, id),
        ...(this.#options.admit && { admit: this.#options.admit }),
      },
      this.#options.version,
    );
    await server.connect(transport);
    return transport;
  }

  #closeIdle(idleMs: number): void {
    const now = Date.now();
    for (const [id, open] of this.#open) {
      if (now - open.usedAt > idleMs) {
        this.#open.delete(id);
        void open.transport.close();
      }
    }
  }
}

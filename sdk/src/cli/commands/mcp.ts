/**
 * `consilium mcp`: an MCP server on stdio for desktop clients that start a process, forwarding every message to the
 * server's `/mcp` (Streamable HTTP) with the saved URL and token, and writing back what it answers, progress included.
 * No MCP library: stdio is one JSON-RPC message a line, and each is posted as it comes (a cancellation can overtake
 * the call it cancels); only `initialize` is awaited, for the session id every later message carries.
 */
import { stringFlag } from '../args.js';
import { configPath, readConfig, resolveConnection } from '../config.js';
import { type Command, checkServerUrl, EXIT, urlSource } from '../context.js';

/** Each `data:` payload of an event stream, as it arrives. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''));
      if (data.length > 0 && data.join('').length > 0) yield data.join('\n');
    }
  }
}

export const mcp: Command = {
  async run(ctx) {
    const { io, parsed } = ctx;
    const flags = { url: stringFlag(parsed, 'url'), token: stringFlag(parsed, 'token') };
    const saved = readConfig(configPath(io.env));
    const { url, token } = resolveConnection(flags, io.env, saved);
    checkServerUrl(url, urlSource(flags.url, io.env, saved), configPath(io.env));
    const endpoint = new URL('/mcp', url);
    const doFetch = io.fetch ?? fetch;
    const write = (message: string) => io.stdout.write(`${message.replace(/\n/g, ' ')}\n`);
    let session: string | undefined;
    let version: string | undefined;

    const forward = async (line: string): Promise<void> => {
      let message: { id?: unknown; method?: string };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        write(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token && { authorization: `Bearer ${token}` }),
        ...(session && { 'mcp-session-id': session }),
        ...(version && { 'mcp-protocol-version': version }),
      };
      const fail = (code: number, text: string) => {
        if (message.id !== undefined) write(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code, message: text } }));
        else io.stderr.write(`consilium mcp: ${text}\n`);
      };
      let res: Response;
      try {
        res = await doFetch(endpoint, { method: 'POST', headers, body: line });
      } catch (error) {
        return fail(-32603, `${endpoint.href} could not be reached: ${(error as Error).message}`);
      }
      session ??= res.headers.get('mcp-session-id') ?? undefined;
      const type = res.headers.get('content-type') ?? '';
      const seen = (text: string) => {
        if (message.method === 'initialize') {
          version ??= (JSON.parse(text) as { result?: { protocolVersion?: string } }).result?.protocolVersion;
        }
        write(text);
      };
      if (res.status === 202 || !res.body) return;
      if (type.startsWith('text/event-stream')) {
        for await (const data of sseData(res.body)) seen(data);
      } else if (res.ok || type.startsWith('application/json')) {
        const text = await res.text();
        if (res.ok || text.includes('"jsonrpc"')) seen(text);
        else fail(-32603, `HTTP ${res.status}: ${text}`);
      } else {
        // 401 and the like come as problems: the client gets them as its request's error.
        const detail = await res.text();
        fail(res.status === 401 ? -32001 : -32603, `HTTP ${res.status} from ${endpoint.href}: ${detail}`);
      }
    };

    const pending = new Set<Promise<void>>();
    let buffer = '';
    for await (const chunk of io.stdin ?? []) {
      buffer += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        if (!line) continue;
        if (session === undefined) await forward(line);
        else {
          const p = forward(line).finally(() => pending.delete(p));
          pending.add(p);
        }
      }
    }
    await Promise.all(pending);
    if (session) {
      await doFetch(endpoint, {
        method: 'DELETE',
        headers: { 'mcp-session-id': session, ...(token && { authorization: `Bearer ${token}` }) },
      }).catch(() => undefined);
    }
    return EXIT.ok;
  },
  options: [],
};

/**
 * The I/O floor for `providers.ts`: the least a Node process does to serve the same streamed debates, so the
 * server's CPU can be read against it. It makes the same upstream calls in the same waves and relays every
 * chunk as one SSE message through the server's own `WriteBatcher`: no engine, parsing, store, auth or logging.
 * Run by `providers.ts` as `tsx bench/relay.ts <simulator port>`.
 */
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WriteBatcher } from '../server/src/http/event-stream.js';

const simPort = Number(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

/** The bench's five slots: path and body per wire format, as `providers.ts` configures the server. */
const SLOTS: ((prompt: string) => { path: string; body: string })[] = [
  (prompt) => ({
    path: '/anthropic/v1/messages',
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      stream: true,
      messages: [{ role: 'user', content: prompt }],
    }),
  }),
  ...['sim-openai', 'sim-deepseek'].map((model, i) => (prompt: string) => ({
    path: i === 0 ? '/openai/v1/chat/completions' : '/deepseek/chat/completions',
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: prompt }] }),
  })),
  (prompt) => ({
    path: '/google/v1beta/models/sim-gemini:streamGenerateContent?alt=sse',
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: prompt }] }] }),
  }),
  (prompt) => ({
    path: '/xai/v1/chat/completions',
    body: JSON.stringify({ model: 'sim-grok', stream: true, messages: [{ role: 'user', content: prompt }] }),
  }),
];

/** One upstream call: every chunk of its body goes to the client as it is read. */
function call(out: WriteBatcher, slot: number, round: number, prompt: string): Promise<void> {
  const { path, body } = SLOTS[slot - 1]!(prompt);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: simPort,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (up: IncomingMessage) => {
        up.setEncoding('utf8');
        up.on('data', (text: string) => {
          out.queue(`data: ${JSON.stringify({ type: 'answer.delta', round, slot, text })}\n\n`, true);
        });
        up.on('end', resolve);
        up.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function debate(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const { question, rounds } = JSON.parse(raw) as { question: string; rounds: number };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  const out = new WriteBatcher((text) => res.write(text));
  for (let round = 1; round <= rounds; round++)
    await Promise.all([1, 2, 3, 4, 5].map((slot) => call(out, slot, round, `Round ${round}. ${question}`)));
  await call(out, 1, rounds + 1, `Verdict. ${question}`);
  out.flush();
  res.end(`data: ${JSON.stringify({ type: 'session.ended', status: 'completed' })}\n\n`);
}

const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/consilium/deep/stream') {
    debate(req, res).catch((error: unknown) => {
      res.end(`data: ${JSON.stringify({ type: 'session.ended', status: 'failed', error: String(error) })}\n\n`);
    });
    return;
  }
  res.writeHead(404).end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});

/**
 * An OpenAI-compatible model on loopback whose every answer carries XSS payloads: a slot pointed at it
 * (`CONSILIUM_SLOTn_PROVIDER=hostile`, `_BASE_URL`) produces untrusted output through the real provider layer and
 * wire format (chat completions, streamed as SSE).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PAYLOADS = [
  '<script>window.__pwned = "script"</script>',
  '<img src="https://evil.example/pixel.png" onerror="window.__pwned = \'onerror\'">',
  '[click me](javascript:window.__pwned=%27link%27)',
  '<a href="javascript:window.__pwned=1">raw link</a>',
  '![tracker](https://evil.example/track.gif)',
  '<iframe src="https://evil.example/frame"></iframe>',
  '<svg onload="window.__pwned=\'svg\'"><circle r="5"/></svg>',
  '<style>body{background:url(https://evil.example/bg.png)}</style>',
  '<div style="background:url(https://evil.example/style.png)">styled</div>',
];

export const HOSTILE_TEXT = `Here is my answer.\n\n${PAYLOADS.join('\n\n')}\n\nThe end.`;

/** Every answer is `text` (the XSS payloads unless told otherwise). */
export async function startHostileModel(
  text = HOSTILE_TEXT,
  options: { pieceSize?: number } = {},
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const piece = new RegExp(`[\\s\\S]{1,${options.pieceSize ?? 24}}`, 'g');
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const id = 'chatcmpl-hostile';
      const chunk = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'hostile-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '' }));
      for (const part of text.match(piece) ?? []) res.write(chunk({ content: part }));
      res.write(chunk({}, 'stop'));
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'hostile-1', choices: [], usage: { prompt_tokens: 12, completion_tokens: 40, total_tokens: 52 } })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

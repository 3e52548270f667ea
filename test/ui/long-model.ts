/**
 * An OpenAI-compatible model on loopback that writes Markdown answers (headings, lists, code, a table) of a chosen
 * length and, when the request asks for JSON, a final position or a verdict (with P0/P1/P2 actions) in the shape the
 * debate asks for. Slots pointed at it run a debate through the real provider layer and wire format: the browser
 * tests use it for a panel that agrees and acts (the offline stand-in claims neither), the bench for long answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

function longMarkdown(seed: number, words: number): string {
  const vocabulary =
    'latency throughput queue partition replay schema consumer backpressure retention ordering idempotent offset broker cluster operator failure budget migration rollback observability'.split(
      ' ',
    );
  const word = (i: number) => vocabulary[(i * 7 + seed * 13) % vocabulary.length]!;
  const parts: string[] = [`## Position ${seed}`];
  let n = 0;
  for (let section = 0; n < words; section++) {
    parts.push(`### ${word(section)} and ${word(section + 3)}`);
    const sentence = (k: number) =>
      `The ${word(k)} of the ${word(k + 1)} depends on **${word(k + 2)}**, so \`${word(k + 3)}\` matters.`;
    parts.push(Array.from({ length: 5 }, (_, k) => sentence(section * 11 + k)).join(' '));
    parts.push(Array.from({ length: 4 }, (_, k) => `- ${sentence(section * 5 + k)}`).join('\n'));
    if (section % 3 === 0) parts.push(`\`\`\`ts\nconst ${word(section)} = await ${word(section + 1)}(${section});\n\`\`\``);
    if (section % 4 === 1)
      parts.push(`| ${word(section)} | ${word(section + 1)} |\n| --- | --- |\n| ${section} | ${section * 2} |`);
    n += 120;
  }
  return parts.join('\n\n');
}

export async function startLongModel(
  words = 1500,
  options: { chunkDelayMs?: number } = {},
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  let calls = 0;
  const server: Server = createServer((req, res) => {
    // No model list (as some OpenAI-compatible servers): a reachability check finds the server but fails, with a cause.
    if (req.method === 'GET') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"This server lists no models."}}');
      return;
    }
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const seed = ++calls;
      const wantsJson = /response_format|JSON shape/.test(body);
      const action = (title: string, slots: number[], rounds: number[]) => ({
        title,
        rationale: `Because ${title.toLowerCase()} lowers the risk.`,
        supportingSlots: slots,
        supportingRounds: rounds,
      });
      const text = /writing the verdict/.test(body)
        ? JSON.stringify({
            summary: 'Use Kafka for ingestion, with a seven-day retention and replay tooling first.',
            answer: longMarkdown(seed, Math.min(words, 300)),
            actions: {
              P0: [action('Set up partitioned topics', [1, 2, 3], [1, 2])],
              P1: [action('Build replay tooling', [2, 4], [2])],
              P2: [action('Review retention after a quarter', [5], [3])],
            },
            dissent: [{ slots: [5], text: 'NATS would be simpler to run.' }],
            confidence: 0.7,
          })
        : wantsJson
          ? JSON.stringify({
              position: longMarkdown(seed, words),
              changed: seed % 2 === 0,
              changeReason: 'The critique round showed the replay cost.',
              // An anonymous debate (the default) names who holds a view by "you" and response letters.
              ...(/letters of the responses/.test(body)
                ? {
                    agreements: [{ statement: 'Ordering matters per partition.', responses: ['you', 'A', 'B', 'C', 'D'] }],
                    disagreements: [
                      {
                        topic: 'Retention',
                        positions: [
                          { position: 'Seven days.', responses: ['you', 'A'] },
                          { position: 'Forever.', responses: ['B', 'C', 'D'] },
                        ],
                      },
                    ],
                  }
                : {
                    agreements: [{ statement: 'Ordering matters per partition.', slots: [1, 2, 3, 4, 5] }],
                    disagreements: [
                      {
                        topic: 'Retention',
                        positions: [
                          { position: 'Seven days.', slots: [1, 2] },
                          { position: 'Forever.', slots: [3, 4, 5] },
                        ],
                      },
                    ],
                  }),
            })
          : longMarkdown(seed, words);
      const id = `chatcmpl-long-${seed}`;
      const chunk = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'long-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '' }));
      const pieces = text.match(/[\s\S]{1,64}/g) ?? [];
      const finish = () => {
        res.write(chunk({}, 'stop'));
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'long-1', choices: [], usage: { prompt_tokens: 500, completion_tokens: words, total_tokens: 500 + words } })}\n\n`,
        );
        res.end('data: [DONE]\n\n');
      };
      // A question that asks to be answered "slowly" streams at a quarter of the pace: long enough to reload mid-run.
      const delay = (options.chunkDelayMs ?? 0) * (/\bslowly\b/.test(body) ? 4 : 1);
      if (delay === 0) {
        res.write(pieces.map((piece) => chunk({ content: piece })).join(''));
        return finish();
      }
      let i = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        if (i >= pieces.length) {
          clearInterval(timer);
          return finish();
        }
        res.write(chunk({ content: pieces[i++]! }));
      }, delay);
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

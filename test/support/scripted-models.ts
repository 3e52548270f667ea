/**
 * Models of known behaviour on an OpenAI-compatible loopback server (chat completions, streamed), for the
 * integrity report, the adaptive strategy, the estimate and `consilium eval`. A slot pointed at it
 * (`CONSILIUM_SLOT<N>_PROVIDER`, `_MODEL`, `_BASE_URL`) runs through the real provider layer and wire format;
 * its model name says how it behaves:
 *
 * - `accurate-<p>` (e.g. `accurate-0.7`): right with probability p on each question, never moves;
 * - `conformist-<p>`: right with probability p in round 1, then adopts the majority of the positions it is
 *   shown, saying it changed without a reason;
 * - `stubborn-<p>`: right with probability p, and never moves;
 * - `always-<answer>`: always answers `<answer>`; any other name (a family's, `qwen2.5:7b`) answers right
 *   with probability `options.p` (0.5 unless given);
 * - `refuser`: refuses every call as OpenAI does (`refusal` deltas, no content, finish `stop`).
 *
 * The questions are sums, "What is a + b?" (`sumQuestions`): the right answer is `a + b`, a wrong one `a + b`
 * plus a small offset that depends on the model and the question, so wrong answers disagree. A question that
 * says "(settled)" is answered right by every model but `always-…`: the panel is unanimous on it. Whether a model is
 * right is a seeded draw per model and question (`options.seed`), so runs repeat exactly. Every answer ends
 * with `POSITION: <number>`; the final round's JSON carries it in `position`; the verdict's answer states the
 * final round's most held position; a judge prompt (`JUDGE_MARK`) is answered by comparing numbers.
 *
 * Usage is counted as a byte-pair tokenizer roughly would: a token per four letters, three digits or one other
 * character, in the request's messages and in the reply. Not the estimator's characters per token, so an
 * estimate that brackets it is tested, not restated.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JUDGE_MARK } from '../../sdk/src/eval/graders.js';

export interface ScriptedCall {
  model: string;
  kind: 'independent' | 'critique' | 'final' | 'verdict' | 'ranking' | 'judge' | 'other';
  question: string;
  usage: { prompt: number; completion: number };
}

export interface ScriptedModels {
  /** The OpenAI-compatible base URL (ends in `/v1`). */
  baseUrl: string;
  /** Every call so far, in order. */
  calls: ScriptedCall[];
  /** The answer a model gives a question in round 1. */
  firstAnswer(model: string, question: string): number;
  close(): Promise<void>;
}

/** A question of the generated set, with its reference answer. */
export interface SumQuestion {
  id: string;
  question: string;
  reference: string;
}

/** `n` sums from a seed, each once. */
export function sumQuestions(n: number, seed = 1): SumQuestion[] {
  const out: SumQuestion[] = [];
  for (let i = 0; out.length < n; i++) {
    const a = 10 + (hash(`${seed}:a:${i}`) % 90);
    const b = 10 + (hash(`${seed}:b:${i}`) % 90);
    const question = `What is ${a} + ${b}?`;
    if (out.some((q) => q.question === question)) continue;
    out.push({ id: `q${out.length + 1}`, question, reference: String(a + b) });
  }
  return out;
}

function hash(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/** A uniform draw in [0, 1) for this text. */
const draw = (text: string) => hash(text) / 2 ** 32;

const tokens = (text: string) => (text.match(/[A-Za-z]{1,4}|\d{1,3}|[^\sA-Za-z\d]/g) ?? []).length;

function sumOf(question: string): number | undefined {
  const m = /What is (\d+) \+ (\d+)\?/.exec(question);
  return m ? Number(m[1]) + Number(m[2]) : undefined;
}

/** The positions the prompt's quoted answers end with, in order. */
function quotedPositions(text: string): number[] {
  return [...text.matchAll(/POSITION: (-?\d+)\n`{3,}/g)].map((m) => Number(m[1]));
}

function majorityOf(values: readonly number[], fallback: number): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const top = Math.max(0, ...counts.values());
  const winners = [...counts].filter(([, n]) => n === top).map(([v]) => v);
  return winners.length === 1 ? winners[0]! : fallback;
}

export async function startScriptedModels(
  options: {
    seed?: number;
    p?: number;
    /** Awaited before a call is answered: a test holds calls back (and lets them go) with it. */
    hold?: (call: Omit<ScriptedCall, 'usage'>) => Promise<void> | undefined;
    /** Reshapes a reply before it is sent, as real models dress structured output (a fence, a sentence before it). */
    dress?: (reply: { kind: ScriptedCall['kind']; text: string }, user: string) => string;
  } = {},
): Promise<ScriptedModels> {
  const seed = options.seed ?? 1;
  const calls: ScriptedCall[] = [];
  const probability = (model: string) => {
    const m = /^(?:accurate|conformist|stubborn)-([\d.]+)$/.exec(model);
    return m ? Number(m[1]) : (options.p ?? 0.5);
  };
  const firstAnswer = (model: string, question: string): number => {
    const always = /^always-(-?\d+)$/.exec(model);
    if (always) return Number(always[1]);
    const right = sumOf(question) ?? 0;
    if (question.includes('(settled)')) return right;
    if (draw(`${seed}:${model}:${question}:right`) < probability(model)) return right;
    return right + 1 + (hash(`${seed}:${model}:${question}:wrong`) % 3);
  };

  const reply = (model: string, system: string, user: string): { kind: ScriptedCall['kind']; text: string } => {
    const question = /Question:\n([^\n]*)/.exec(user)?.[1] ?? '';
    // `ask` quotes the judge prompt as its question.
    if (user.includes(JUDGE_MARK)) {
      const reference = /Reference answer:\n([^\n]*)/.exec(user)?.[1]?.trim() ?? '';
      const answer = /Answer to grade:\n([\s\S]*?)\nEnd of the answer to grade\./.exec(user)?.[1] ?? '';
      const given = /(-?\d+)\D*$/.exec(answer.trim())?.[1];
      return {
        kind: 'judge',
        text: `Comparing the numbers.\n${given !== undefined && given === reference ? 'CORRECT' : 'INCORRECT'}`,
      };
    }
    if (user.startsWith('You are ranking the answers')) {
      const labels = [...new Set([...user.matchAll(/^Response ([A-E]) said:/gm)].map((m) => m[1]!))];
      return { kind: 'ranking', text: JSON.stringify({ ranking: labels.map((l) => ({ response: l, reason: 'As shown.' })) }) };
    }
    if (user.startsWith('You are writing the verdict')) {
      const rounds = user.split(/^## Round \d+$/m);
      const last = rounds.at(-1) ?? '';
      const position = majorityOf(quotedPositions(last), quotedPositions(last)[0] ?? 0);
      return {
        kind: 'verdict',
        text: JSON.stringify({
          summary: `The panel's answer is ${position}.`,
          answer: `The sum is ${position}.\n\nPOSITION: ${position}`,
          actions: { P0: [], P1: [], P2: [] },
          dissent: [],
          confidence: 0.8,
        }),
      };
    }
    const round = /This is round (\d+)(, the final round)?/.exec(user);
    const q = /Question:\n([^\n]*)/.exec(user)?.[1] ?? question;
    const first = firstAnswer(model, q);
    if (!round) return { kind: 'independent', text: `I add the two numbers.\n\nPOSITION: ${first}` };
    // Its own latest answer is quoted right after "Your answer in the previous round:".
    const own = /Your answer in the previous round:\n`{3,}text\n[\s\S]*?POSITION: (-?\d+)/.exec(user);
    const previous = own ? Number(own[1]) : first;
    const seen = quotedPositions(user.slice(own ? (own.index ?? 0) + own[0].length : 0));
    const now = model.startsWith('conformist') ? majorityOf([previous, ...seen], previous) : previous;
    if (!round[2]) return { kind: 'critique', text: `Having read the others, my answer is ${now}.\n\nPOSITION: ${now}` };
    const anonymous = /letters of the responses/.test(user);
    const changed = now !== first;
    return {
      kind: 'final',
      text: JSON.stringify({
        position: `My final answer is ${now}.\n\nPOSITION: ${now}`,
        changed,
        // The conformist moves without saying why; the others hold, and say why.
        changeReason: model.startsWith('conformist') ? '' : 'I checked the sum again.',
        agreements: anonymous
          ? [{ statement: 'It is a sum.', responses: ['you'] }]
          : [{ statement: 'It is a sum.', slots: [slotOf(system)] }],
        disagreements: [],
      }),
    };
  };

  const server: Server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', async () => {
      const request = JSON.parse(body) as { model: string; messages: { role: string; content: string }[] };
      const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
      const user = request.messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .join('\n');
      const scripted = reply(request.model, system, user);
      const { kind } = scripted;
      const text = options.dress ? options.dress(scripted, user) : scripted.text;
      // A judge's call belongs to the question it grades, quoted after the mark.
      const askedText = user.includes(JUDGE_MARK) ? user.slice(user.indexOf(JUDGE_MARK)) : user;
      await options.hold?.({ model: request.model, kind, question: /Question:\n([^\n]*)/.exec(askedText)?.[1] ?? '' });
      // Gone while held (its run was stopped): nothing to answer, nothing to count.
      if (res.socket === null || res.socket.destroyed) return;
      const usage = { prompt: tokens(request.messages.map((m) => m.content).join(' ')), completion: tokens(text) };
      calls.push({ model: request.model, kind, question: /Question:\n([^\n]*)/.exec(askedText)?.[1] ?? '', usage });
      const id = `chatcmpl-scripted-${calls.length}`;
      const chunk = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: request.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '' }));
      if (request.model === 'refuser') res.write(chunk({ refusal: "I'm sorry, I can't help with that." }));
      else for (const piece of text.match(/[\s\S]{1,40}/g) ?? []) res.write(chunk({ content: piece }));
      res.write(chunk({}, 'stop'));
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: request.model, choices: [], usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion } })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    firstAnswer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function slotOf(system: string): number {
  return Number(/You are slot (\d+)/.exec(system)?.[1] ?? 1);
}

/** Slot settings pointing slots 1–5 at `models` (by slot), each its own provider name, priced per `prices`. */
export function scriptedPanel(
  baseUrl: string,
  models: readonly string[],
  price = { inputPerMTok: 1, outputPerMTok: 2 },
): Record<string, string> {
  const env: Record<string, string> = {};
  const prices: Record<string, typeof price> = {};
  models.forEach((model, i) => {
    const slot = i + 1;
    const provider = `scripted-${slot}`;
    env[`CONSILIUM_SLOT${slot}_PROVIDER`] = provider;
    env[`CONSILIUM_SLOT${slot}_MODEL`] = model;
    env[`CONSILIUM_SLOT${slot}_BASE_URL`] = baseUrl;
    prices[`${provider}/${model}`] = price;
  });
  env.CONSILIUM_PRICES = JSON.stringify(prices);
  return env;
}

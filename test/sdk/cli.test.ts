/**
 * The `consilium` terminal client: the real bin, run as a process against the real server on loopback
 * (and once under a pseudo-terminal, through util-linux `script`, to see the live display).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DebateEvent, Session } from '../../sdk/src/generated/types.gen.js';
import { SLOT_COLOURS } from '../../sdk/src/slots.js';
import { hexSgr } from '../../sdk/src/terminal/terminal.js';
import { storeInterrupted } from '../support/fake-debate.js';
import { type RunningServer, startServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'sdk/src/cli/bin.ts');
const ESC = '\u001b';

let server: RunningServer;
let home: string;

beforeAll(async () => {
  server = await startServer();
  home = mkdtempSync(join(tmpdir(), 'consilium-cli-'));
});
afterAll(async () => {
  await server?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, CONSILIUM_CONFIG: join(home, 'config.json'), ...extra };
  return env;
}

/** The bin, as `node` runs it (through tsx, as the build would give the same code). */
function cli(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', BIN, ...args],
      { cwd: ROOT, env: baseEnv({ CONSILIUM_URL: server.baseUrl, ...tokenEnv(), ...env }) },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

/** The bin under a pseudo-terminal (util-linux `script`), with `before` run in its shell first. */
function underPty(args: string, env: Record<string, string> = {}, before = ''): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const command = `${before} ${process.execPath} --import tsx ${BIN} ${args}`;
    execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { cwd: ROOT, env: baseEnv({ CONSILIUM_URL: server.baseUrl, TERM: 'xterm-256color', ...tokenEnv(), ...env }) },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

/** A session's status once it has stopped running (polled every 50 ms; the test's timeout bounds it). */
async function settledStatus(s: RunningServer, id: string): Promise<string> {
  let status = 'running';
  while (status === 'running') {
    await new Promise((r) => setTimeout(r, 50));
    status = ((await (await s.fetch(`/sessions/${id}`)).json()) as { status: string }).status;
  }
  return status;
}

/** Commands run as the test server's own user. */
const tokenEnv = (): Record<string, string> => ({ CONSILIUM_TOKEN: server.token });

describe('consilium', () => {
  it('prints its version and help; usage errors exit 2', async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'sdk/package.json'), 'utf8')) as { version: string };
    expect((await cli(['--version'])).stdout.trim()).toBe(manifest.version);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/consilium <command>/);
    expect(help.stdout).toMatch(/follow-up <session> "<question>" \[--mode single\|parallel\|deep\]/);
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command: frobnicate/);
    expect((await cli(['ask'])).code).toBe(2);
    expect((await cli(['ask', 'Why?', '--slot', 'x'])).stderr).toMatch(/--slot must be a whole number/);
  });

  it('login stores the URL and token in a 0600 file that later commands use; flags and env override it', async () => {
    const config = join(home, 'login', 'config.json');
    const login = await cli(['login', '--url', server.baseUrl, '--token', server.token], {
      CONSILIUM_CONFIG: config,
      CONSILIUM_URL: '',
      CONSILIUM_TOKEN: '',
    });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`as ${server.user.username}; saved to ${config}`);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({ url: server.baseUrl, token: server.token });
    // A token the server does not know is refused, and nothing is saved.
    const refused = await cli(['login', '--url', server.baseUrl, '--token', 'csk_test_token'], {
      CONSILIUM_CONFIG: join(home, 'refused', 'config.json'),
    });
    expect(refused.code).toBe(3);
    expect(() => statSync(join(home, 'refused', 'config.json'))).toThrow();
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'login')).mode & 0o777).toBe(0o700);

    // Saved URL used when nothing overrides it.
    const ask = await cli(['ask', 'Hello?', '--json'], { CONSILIUM_CONFIG: config, CONSILIUM_URL: '' });
    expect(ask.code, ask.stderr).toBe(0);
    // The environment, then a flag, override the saved URL: a closed port fails as a network error.
    const viaEnv = await cli(['ask', 'Hello?'], { CONSILIUM_CONFIG: config, CONSILIUM_URL: 'http://127.0.0.1:9' });
    expect(viaEnv.code).toBe(5);
    const viaFlag = await cli(['ask', 'Hello?', '--url', server.baseUrl], {
      CONSILIUM_CONFIG: config,
      CONSILIUM_URL: 'http://127.0.0.1:9',
    });
    expect(viaFlag.code).toBe(0);
  });

  it('login --username signs in with the password on stdin and saves a new API token that works', async () => {
    const config = join(home, 'password', 'config.json');
    const env = { CONSILIUM_CONFIG: config, CONSILIUM_URL: '', CONSILIUM_TOKEN: '' };
    const login = await cli(
      ['login', '--url', server.baseUrl, '--username', 'admin', '--password-stdin'],
      env,
      `${server.adminPassword}\n`,
    );
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`as admin; saved to ${config}`);
    const saved = JSON.parse(readFileSync(config, 'utf8')) as { url: string; token: string };
    expect(saved).toEqual({ url: server.baseUrl, token: expect.stringMatching(/^csk_/) });
    expect(saved.token).not.toBe(server.token);
    const ask = await cli(['ask', 'Hello?', '--json'], env);
    expect(ask.code, ask.stderr).toBe(0);
    // Logging in again replaces the token: the first one is revoked, the new one expires in 90 days.
    const again = await cli(
      ['login', '--url', server.baseUrl, '--username', 'admin', '--password-stdin'],
      env,
      `${server.adminPassword}\n`,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('revoked the token of the previous login');
    const second = JSON.parse(readFileSync(config, 'utf8')) as { token: string };
    expect((await cli(['sessions', '--json'], { ...env, CONSILIUM_TOKEN: saved.token })).code).toBe(3);
    expect((await cli(['sessions', '--json'], { ...env, CONSILIUM_TOKEN: second.token })).code).toBe(0);
    const tokens = (await (
      await fetch(`${server.baseUrl}/auth/tokens`, { headers: { authorization: `Bearer ${second.token}` } })
    ).json()) as { items: { name: string; prefix: string; expiresAt?: string }[] };
    const mine = tokens.items.filter((t) => t.name === 'consilium-cli');
    expect(mine).toHaveLength(1);
    const days = (Date.parse(mine[0]!.expiresAt!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89);
    expect(days).toBeLessThan(91);
    // A wrong password is an auth failure (exit 3), and nothing is saved.
    const wrong = await cli(
      ['login', '--url', server.baseUrl, '--username', 'admin', '--password-stdin'],
      {
        ...env,
        CONSILIUM_CONFIG: join(home, 'wrong', 'config.json'),
      },
      'not it\n',
    );
    expect(wrong.code).toBe(3);
    expect(() => statSync(join(home, 'wrong', 'config.json'))).toThrow();
  });

  it('ask answers from the chosen slot, as text or JSON', async () => {
    const text = await cli(['ask', 'What is 2 + 2?', '--slot', '2']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^2 openai\//);
    expect(text.stdout).not.toContain(ESC); // not a terminal: no colour
    const json = await cli(['ask', 'What is 2 + 2?', '--provider', 'xai', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ answer: { slot: 5, provider: 'xai' } });
  });

  it('debate prints each round, each answer and the verdict grouped by priority; --json streams events', async () => {
    const run = await cli(['debate', 'Tabs or spaces?', '--rounds', '2']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Round 1\/2 · independent/);
    expect(run.stdout).toMatch(/Round 2\/2 · final/);
    for (const slot of ['1 anthropic:', '2 openai:', '3 deepseek:', '4 google:', '5 xai:']) expect(run.stdout).toContain(slot);
    expect(run.stdout).toMatch(/Verdict written by 1 anthropic/);
    expect(run.stdout).toMatch(/\nsummary: .+\nanswer: /); // streamed as written
    // Offline, the stand-in synthesizer says there is no verdict and lists no actions (see debate-view.test.ts).
    expect(run.stdout).toMatch(/No verdict: the synthesizer, slot 1 \(anthropic\), is an offline stand-in/);
    expect(run.stdout).not.toMatch(/\nP[012]\n/);
    expect(run.stdout).toMatch(/\ncompleted · \d+ tokens/);

    const json = await cli(['debate', 'Tabs or spaces?', '--rounds', '2', '--json']);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; seq: number });
    expect(events[0]?.type).toBe('session.started');
    expect(events.at(-1)?.type).toBe('session.ended');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it('a debate with no question exits 2, suggesting the debate command itself', async () => {
    const run = await cli(['debate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing the question, e.g. consilium debate "Should we rewrite it in Rust?"');
  });

  it('a refused request exits 2 with the problem on stderr', async () => {
    const run = await cli(['debate', 'Why?', '--rounds', '9']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    // The problem in one line, then a line per field: not "1 field is invalid.: body.rounds…".
    expect(run.stderr).toMatch(
      /^consilium: Request validation failed \(validation_failed\): 1 field is invalid\. \[request \S+\]\nconsilium: {3}body\.rounds: Too big: expected number to be <=5\n$/,
    );
  });

  it('sessions list, show, export (md and json) and delete', async () => {
    const asked = JSON.parse((await cli(['ask', 'Which session am I?', '--json'])).stdout) as { sessionId: string };
    const id = asked.sessionId;
    const list = await cli(['sessions', 'list', '--q', 'Which session am I']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(id);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID +STATUS +MODE +CREATED +QUESTION$/);
    const listed = JSON.parse((await cli(['sessions', '--json', '--limit', '1'])).stdout) as unknown[];
    expect(listed).toHaveLength(1);
    const show = await cli(['sessions', 'show', id]);
    expect(show.stdout).toMatch(/^Which session am I\?/);
    expect(show.stdout).toMatch(/Round 1 · independent/);
    const md = await cli(['sessions', 'export', id, '--format', 'md']);
    expect(md.stdout).toMatch(/^# /);
    const json = await cli(['sessions', 'export', id, '--format', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ id });
    expect((await cli(['sessions', 'export', id, '--format', 'pdf'])).code).toBe(2);
    const deleted = await cli(['sessions', 'delete', id]);
    expect(deleted.stdout).toBe(`Deleted ${id}\n`);
    // Not found is a refusal (6), for every command that names a session.
    for (const args of [
      ['sessions', 'show', id],
      ['sessions', 'delete', id],
      ['sessions', 'export', id],
      ['follow-up', id, 'q'],
    ]) {
      const gone = await cli(args);
      expect(gone.code, args.join(' ')).toBe(6);
      expect(gone.stderr).toMatch(/not_found/);
    }
  });

  it('sessions rerun, archive and unarchive, share and unshare, and full-text search', async () => {
    const asked = JSON.parse((await cli(['ask', 'Which queue, again?', '--json'])).stdout) as { sessionId: string };
    const id = asked.sessionId;
    await settledStatus(server, id);
    // Full-text: a word only the offline answer holds is not in the question.
    const answer = (await server.sessions.get(id, server.user.id))?.rounds[0]?.answers[0]?.text ?? '';
    const word = answer.split(/\W+/).find((w) => w.length > 6 && !/queue|again/i.test(w))!;
    const found = await cli(['sessions', 'list', '--text', word]);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain(id);

    const rerun = await cli(['sessions', 'rerun', id, '--question', 'Which queue, once more?', '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const again = (JSON.parse(rerun.stdout) as { sessionId: string }).sessionId;
    expect(again).not.toBe(id);
    expect(await settledStatus(server, again)).toBe('completed');
    expect((await server.sessions.get(again, server.user.id))?.question).toBe('Which queue, once more?');

    expect((await cli(['sessions', 'archive', id])).stdout).toBe(`Archived ${id}\n`);
    expect((await cli(['sessions', 'list'])).stdout).not.toContain(id);
    expect((await cli(['sessions', 'list', '--archived'])).stdout).toContain(id);
    expect((await cli(['sessions', 'unarchive', id])).stdout).toBe(`Unarchived ${id}\n`);
    expect((await cli(['sessions', 'list'])).stdout).toContain(id);

    const reader = await server.newUser({ username: 'cli-reader' });
    const readerEnv = { CONSILIUM_TOKEN: reader.token };
    expect((await cli(['sessions', 'show', id], readerEnv)).code).toBe(6);
    expect((await cli(['sessions', 'share', id, 'cli-reader'])).stdout).toBe(`Shared ${id} with cli-reader (read-only)\n`);
    expect((await cli(['sessions', 'shares', id])).stdout).toMatch(/^cli-reader {2}since /);
    expect((await cli(['sessions', 'show', id], readerEnv)).code).toBe(0);
    expect((await cli(['sessions', 'list', '--shared'], readerEnv)).stdout).toContain(id);
    expect((await cli(['sessions', 'unshare', id, 'cli-reader'])).stdout).toBe(`Stopped sharing ${id} with cli-reader\n`);
    expect((await cli(['sessions', 'show', id], readerEnv)).code).toBe(6);
    const notShared = await cli(['sessions', 'unshare', id, 'cli-reader']);
    expect(notShared.code).toBe(6);
    expect(notShared.stderr).toMatch(/not shared with cli-reader/);
    expect((await cli(['sessions', 'share', id])).code).toBe(2);
  });

  it('sessions continue takes an interrupted session to its end and prints it; anything else is refused', async () => {
    const d = await storeInterrupted(server.sessions.store, server.user.id);
    const id = d.session.id;
    const continued = await cli(['sessions', 'continue', id, '--json']);
    expect(continued.code, continued.stderr).toBe(0);
    expect(JSON.parse(continued.stdout)).toMatchObject({
      id,
      status: 'completed',
      rounds: [{ number: 1 }, { number: 2 }, { number: 3 }],
    });
    const again = await cli(['sessions', 'continue', id]);
    expect(again.code).toBe(6);
    expect(again.stderr).toMatch(/conflict/);
    expect((await cli(['sessions', 'continue'])).code).toBe(2);
  });

  it('sessions cancel stops a detached run and keeps it; an ended session is left as it ended', async () => {
    // Slow offline models, so the run is still going when it is cancelled.
    const slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '5' });
    try {
      const env = { CONSILIUM_URL: slow.baseUrl, CONSILIUM_TOKEN: slow.token };
      const started = await slow.fetch('/consilium/deep', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'Stop me from the terminal?', rounds: 3, detach: true }),
      });
      const { sessionId: id } = (await started.json()) as { sessionId: string };
      const cancelled = await cli(['sessions', 'cancel', id], env);
      expect(cancelled, cancelled.stderr).toMatchObject({ code: 0, stdout: `${id} cancelled\n` });
      expect(((await (await slow.fetch(`/sessions/${id}`)).json()) as { status: string }).status).toBe('cancelled');
      // Idempotent: cancelling again answers the same.
      expect((await cli(['sessions', 'cancel', id], env)).stdout).toBe(`${id} cancelled\n`);
      expect(JSON.parse((await cli(['sessions', 'cancel', id, '--json'], env)).stdout)).toMatchObject({
        id,
        status: 'cancelled',
      });
      expect((await cli(['sessions', 'cancel', 'ses_00000000000000000000000000'], env)).code).toBe(6);
    } finally {
      await slow.close();
    }
    const done = JSON.parse((await cli(['ask', 'Already answered?', '--json'])).stdout) as { sessionId: string };
    expect((await cli(['sessions', 'cancel', done.sessionId])).stdout).toBe(`${done.sessionId} had already ended: completed\n`);
  });

  it('--json and the JSON export escape C1 controls and bidi overrides, keeping the data', async () => {
    const question = 'Is \u202eevil\u202c or \u009b2J here?';
    const asked = await cli(['ask', question, '--json']);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
    const { sessionId } = JSON.parse(asked.stdout) as { sessionId: string };
    const shown = await cli(['sessions', 'show', sessionId, '--json']);
    expect(shown.stdout).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
    expect(shown.stdout).toContain('\\u202e');
    expect(JSON.parse(shown.stdout).question).toBe(question);
    // On a terminal the export is still the same data, not the text with characters taken out.
    const exported = await underPty(`sessions export ${sessionId} --format json`);
    expect(exported).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
    expect(JSON.parse(exported).question).toBe(question);
  });

  it("follow-up asks again in a finished session's thread and prints the new session, its answers and verdict", async () => {
    const first = JSON.parse((await cli(['ask', 'Which database?', '--json'])).stdout) as { sessionId: string };
    const id = first.sessionId;

    // Deep, with the rounds asked for: every round, every slot, the verdict, and where it sits in the thread.
    // Streamed as debate streams, piped: each round, each answer when complete, the consensus, the verdict.
    const deep = await cli(['follow-up', id, 'And how would we migrate?', '--mode', 'deep', '--rounds', '2']);
    expect(deep.code, deep.stderr).toBe(0);
    expect(deep.stdout).toMatch(/^And how would we migrate\?\nsession ses_\S+ · 5 models · 2 rounds\n/);
    expect(deep.stdout).toMatch(/Round 1\/2 · independent/);
    expect(deep.stdout).toMatch(/Round 2\/2 · final/);
    expect(deep.stdout).not.toMatch(/Round 3/);
    for (const slot of ['1 anthropic:', '2 openai:', '3 deepseek:', '4 google:', '5 xai:']) expect(deep.stdout).toContain(slot);
    expect(deep.stdout).toMatch(/\nVerdict written by 1 anthropic/);
    expect(deep.stdout).toMatch(/\ncompleted · \d+ tokens/);
    expect(deep.stdout).toContain(`follow-up of ${id} · thread ${id}`);

    // The default mode is the parent's (single), and the parent's slot unless another is named.
    const json = await cli(['follow-up', id, 'Why that one?', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const single = JSON.parse(json.stdout) as {
      mode: string;
      parentId: string;
      threadId: string;
      rounds: { answers: { slot: number }[] }[];
    };
    expect(single).toMatchObject({ mode: 'single', parentId: id, threadId: id });
    expect(single.rounds[0]?.answers.map((a) => a.slot)).toEqual([1]);
    const bySlot = JSON.parse((await cli(['follow-up', id, 'Ask slot 3', '--slot', '3', '--json'])).stdout) as typeof single;
    expect(bySlot.rounds[0]?.answers.map((a) => a.slot)).toEqual([3]);
    const byProvider = JSON.parse(
      (await cli(['follow-up', id, 'Ask xai', '--provider', 'xai', '--json'])).stdout,
    ) as typeof single;
    expect(byProvider.rounds[0]?.answers.map((a) => a.slot)).toEqual([5]);
    const parallel = JSON.parse(
      (await cli(['follow-up', id, 'Everyone?', '--mode', 'parallel', '--slots', '2,4', '--json'])).stdout,
    ) as typeof single;
    expect(parallel.mode).toBe('parallel');
    expect(parallel.rounds[0]?.answers.map((a) => a.slot).sort()).toEqual([2, 4]);

    // The question is user text: escape sequences never reach the terminal.
    const hostile = await cli(['follow-up', id, `Colour\u001b[31m me\u001b]0;title\u0007 red`]);
    expect(hostile.code, hostile.stderr).toBe(0);
    expect(hostile.stdout).not.toContain(ESC);
    expect(hostile.stdout).toMatch(/^Colour me red\n/);

    // Bad arguments exit 2 before any request; an unknown session is the server's not_found.
    expect((await cli(['follow-up', id, 'Why?', '--mode', 'loud'])).stderr).toMatch(/--mode must be single, parallel or deep/);
    expect((await cli(['follow-up', id])).code).toBe(2);
    expect((await cli(['follow-up', id, 'Why?', '--slot', '1', '--provider', 'xai'])).code).toBe(2);
    expect((await cli(['follow-up', id, 'Why?', '--slots', 'one'])).code).toBe(2);
    const refused = await cli(['follow-up', id, 'Why?', '--mode', 'deep', '--rounds', '9']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/validation_failed/);
    const missing = await cli(['follow-up', 'ses_doesnotexist0000000000', 'Why?']);
    expect(missing.code).toBe(6);
    expect(missing.stderr).toMatch(/not_found|No session/);
  });

  it('debate and follow-up choose the panel: --slots, --synthesizer, --ranking, --named; a deep follow-up keeps it unless told', async () => {
    const run = await cli([
      'debate',
      'Which queue?',
      '--rounds',
      '2',
      '--slots',
      '4,2',
      '--synthesizer',
      '3',
      '--ranking',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as DebateEvent);
    const started = events.find((e) => e.type === 'session.started');
    expect(started?.type === 'session.started' && started.slots.map((s) => s.slot)).toEqual([2, 4]);
    expect(events.find((e) => e.type === 'synthesis.started')).toMatchObject({
      synthesizer: { slot: 3, reason: 'chosen', participated: false },
    });
    // Offline stand-ins have no judgement to rank with: the ranking says so rather than invent one.
    expect(events.find((e) => e.type === 'ranking')).toMatchObject({
      ranking: { ballots: [], missing: [{ slot: 2 }, { slot: 4 }] },
    });
    const id = events[0]!.sessionId;

    const inherited = JSON.parse((await cli(['follow-up', id, 'And then?', '--json'])).stdout) as Session;
    expect(inherited.panel).toEqual({ slots: [2, 4], synthesizer: 3, anonymous: true, ranking: true });
    const named = JSON.parse((await cli(['follow-up', id, 'Named?', '--named', '--slots', '1,2,5', '--json'])).stdout) as Session;
    expect(named.panel).toEqual({ slots: [1, 2, 5], synthesizer: 3, anonymous: false, ranking: true });

    // One slot is no debate: the server's validation_failed, exit 2; panel flags on a single follow-up are usage errors.
    const one = await cli(['debate', 'Alone?', '--slots', '3,3']);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/validation_failed.*\nconsilium: {3}body\.slots: A debate needs at least two distinct slots/s);
    expect((await cli(['follow-up', id, 'Why?', '--mode', 'single', '--ranking'])).code).toBe(2);
    expect((await cli(['debate', 'Which?', '--models', '2:gpt'])).stderr).toMatch(/--models must be slot=model pairs/);
  });

  it('a slot the server does not have, or a server URL that is not http(s), is a usage error (2)', async () => {
    const slot = await cli(['ask', 'q', '--slot', '7']);
    expect(slot.code).toBe(2);
    expect(slot.stderr).toMatch(/no slot 7 on this server; its slots are 1 \(anthropic\), 2 \(openai\), .*5 \(xai\)/);
    for (const url of ['notaurl', 'ftp://127.0.0.1/']) {
      const run = await cli(['sessions', '--url', url]);
      expect(run.code, url).toBe(2);
      expect(run.stderr).toMatch(/--url (is not a URL|must be an http or https URL)/);
    }
  });

  it('takes the global options before the command', async () => {
    const run = await cli(['--url', server.baseUrl, '--token', server.token, '--json', 'ask', 'Before?'], {
      CONSILIUM_URL: '',
      CONSILIUM_TOKEN: '',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ answer: { slot: 1 } });
  });

  it('wiki generate exits 5 when the wiki cannot be reached', async () => {
    // A port that was just free: the connection is refused (port 9 would be refused by fetch itself, "bad port").
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const api = `http://127.0.0.1:${port}/api.php`;
    const run = await cli(['wiki', 'generate', '--catalogue', api, '--out', join(home, 'wiki-out')]);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain(`GET ${api}?action=paraminfo`);
    expect(run.stderr).toMatch(/failed: fetch failed \(.*ECONNREFUSED.*\)/);
  });

  it('exits 3 on an authentication failure and 5 when the server cannot be reached', async () => {
    const refusing: Server = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/problem+json', 'x-request-id': 'req_auth' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Unauthorized', status: 401, code: 'unauthorized' }));
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
      const run = await cli(['sessions', 'list', '--url', url]);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/unauthorized/);
      expect(run.stderr).toMatch(/consilium login/);
    } finally {
      refusing.close();
    }
    const offline = await cli(['debate', 'Why?', '--url', 'http://127.0.0.1:9']);
    expect(offline.code).toBe(5);
    expect(offline.stderr).toMatch(/Network error: .* talking to http:\/\/127\.0\.0\.1:9/);
  });

  it('wiki build prints the URL and warnings, and fails on an invalid parameter', async () => {
    const ok = await cli([
      'wiki',
      'build',
      'allpages',
      '--prefix',
      'Foo',
      '--limit',
      '600',
      '--api',
      'https://wiki.example/w/api.php',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    const url = new URL(ok.stdout.trim());
    expect(url.origin + url.pathname).toBe('https://wiki.example/w/api.php');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      action: 'query',
      list: 'allpages',
      apprefix: 'Foo',
      aplimit: '500',
    });
    expect(ok.stderr).toMatch(/warning: outofrange aplimit/);
    const bad = await cli(['wiki', 'build', 'allpages', '--limit', 'lots']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/badinteger/);
    expect((await cli(['wiki', 'build', 'nosuchmodule'])).code).toBe(2);
    expect((await cli(['wiki', 'build', 'allpages', '--nosuchparam', '1'])).stderr).toMatch(
      /allpages has no parameter --nosuchparam/,
    );
    const json = JSON.parse((await cli(['wiki', 'build', 'revisions', '--prop', 'ids|content', '--json'])).stdout);
    expect(json).toMatchObject({ method: 'GET', params: { prop: 'revisions', rvprop: 'ids|content' }, warnings: [] });
  });

  it('wiki build takes repeated multi values, API-prefixed names, the page set, and an api.php URL with a query', async () => {
    const paramsOf = async (args: string[]) => {
      const run = await cli(['wiki', 'build', ...args]);
      expect(run.code, run.stderr).toBe(0);
      return Object.fromEntries(new URL(run.stdout.trim()).searchParams);
    };
    expect(await paramsOf(['recentchanges', '--type', 'edit', '--type', 'new', '--rclimit', '5'])).toMatchObject({
      rctype: 'edit|new',
      rclimit: '5',
    });
    // prop modules read the page set; `links`' own `titles` is `--pltitles`.
    expect(await paramsOf(['revisions', '--titles', 'History', '--titles', 'Main Page', '--prop', 'content'])).toMatchObject({
      prop: 'revisions',
      titles: 'History|Main Page',
      rvprop: 'content',
    });
    expect(await paramsOf(['links', '--pageids', '7', '--pltitles', 'Target'])).toMatchObject({
      pageids: '7',
      pltitles: 'Target',
    });
    const withQuery = await cli(['wiki', 'build', 'allpages', '--api', 'https://wiki.example/w/api.php?key=1']);
    expect(withQuery.stdout).toMatch(/^https:\/\/wiki\.example\/w\/api\.php\?key=1&action=query&/);
    for (const [args, message] of [
      [['revisions', '--pageids', 'seven'], /--pageids takes page or revision ids/],
      [['allpages', '--limit', '1', '--aplimit', '2'], /--aplimit given twice/],
    ] as const) {
      const refused = await cli(['wiki', 'build', ...args]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
  });

  it('wiki generate is consilium-wiki generate', async () => {
    const run = await cli(['wiki', 'generate', '--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('debate --full prints every answer whole as it is written, under a terminal and piped', async () => {
    const piped = await cli(['debate', 'Tabs or spaces?', '--rounds', '2', '--full']);
    expect(piped.code, piped.stderr).toBe(0);
    const session = (await (await server.fetch(`/sessions/${/session (ses_\S+)/.exec(piped.stdout)![1]}`)).json()) as {
      rounds: { number: number; answers: { slot: number; provider: string; text: string }[] }[];
    };
    // Every answer of every round, whole, under its slot's heading, in slot order, each exactly once.
    let at = 0;
    for (const round of session.rounds) {
      at = piped.stdout.indexOf(`Round ${round.number}/2`, at);
      expect(at).toBeGreaterThan(-1);
      for (const a of [...round.answers].sort((x, y) => x.slot - y.slot)) {
        const block = `\n${a.slot} ${a.provider}:\n${a.text.trim()}`;
        const found = piped.stdout.indexOf(block, at);
        expect(found, `round ${round.number} slot ${a.slot}`).toBeGreaterThan(at);
        at = found;
      }
    }
    expect(piped.stdout).toMatch(/\nConsensus \(round 2\)\n/);
    expect(piped.stdout).toMatch(/\ncompleted · \d+ tokens/);
    const tty = await underPty("debate 'Tabs or spaces?' --rounds 2 --full");
    expect(tty).not.toMatch(new RegExp(`${ESC}\\[\\d+F`)); // scrolls, never redrawn in place
    const plain = tty.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '').replace(/\r/g, '');
    for (const heading of ['\n1 anthropic:\n', '\n5 xai:\n']) expect(plain.split(heading).length - 1).toBe(2); // once per round
    expect(tty).toContain(`${ESC}[${hexSgr(SLOT_COLOURS[0]!.dark, false)}m1 anthropic`);
  });

  it('follow-up streams as it runs, not all at once at the end', async () => {
    const slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '20' });
    try {
      const parent = (await (
        await slow.fetch('/ask/anthropic', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ question: 'First?', maxOutputTokens: 2 }),
        })
      ).json()) as { sessionId: string };
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', BIN, 'follow-up', parent.sessionId, 'Then?', '--mode', 'deep', '--rounds', '2'],
        {
          cwd: ROOT,
          env: baseEnv({ CONSILIUM_URL: slow.baseUrl, CONSILIUM_TOKEN: slow.token }),
        },
      );
      let stdout = '';
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // The first answer is printed while the session still runs on the server.
      const firstAnswer = await new Promise<string>((resolve) =>
        child.stdout!.on('data', (d) => {
          stdout += d;
          const id = /session (ses_\S+)/.exec(stdout)?.[1];
          if (id && / anthropic: /.test(stdout)) resolve(id);
        }),
      );
      const status = ((await (await slow.fetch(`/sessions/${firstAnswer}`)).json()) as { status: string }).status;
      expect(status).toBe('running');
      expect(await exited).toBe(0);
      expect(stdout).toContain(`follow-up of ${parent.sessionId}`);
    } finally {
      await slow.close();
    }
  });

  it('parallel asks every slot (or those listed) at once and streams them; --json is one event per line', async () => {
    const run = await cli(['parallel', 'Which editor?']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Which editor\?\nsession ses_\S+ · 5 models/);
    for (const slot of ['1 anthropic:', '2 openai:', '3 deepseek:', '4 google:', '5 xai:']) expect(run.stdout).toContain(slot);
    expect(run.stdout).toMatch(/\ncompleted · \d+ tokens/);
    const some = await cli(['parallel', 'Which editor?', '--slots', '2,4', '--json']);
    expect(some.code, some.stderr).toBe(0);
    const events = some.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; answer?: { slot: number } });
    expect(events[0]?.type).toBe('session.started');
    expect(events.at(-1)?.type).toBe('session.ended');
    expect(
      events
        .filter((e) => e.type === 'answer.completed')
        .map((e) => e.answer!.slot)
        .sort(),
    ).toEqual([2, 4]);
    const full = await underPty("parallel 'Which editor?' --slots 1,3 --full");
    const plain = full.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '').replace(/\r/g, '');
    expect(plain).toMatch(/\n1 anthropic:\n[\s\S]+\n3 deepseek:\n/);
    expect((await cli(['parallel', 'Why?', '--slots', 'one'])).code).toBe(2);
  });

  it('synthesize writes a verdict from a stored session or from given answers (a file or stdin)', async () => {
    const first = JSON.parse((await cli(['parallel', 'Monolith or services?', '--json'])).stdout.trim().split('\n')[0]!) as {
      sessionId: string;
    };
    const fromSession = await cli(['synthesize', first.sessionId]);
    expect(fromSession.code, fromSession.stderr).toBe(0);
    expect(fromSession.stdout).toMatch(/^Verdict written by 1 anthropic\n/);
    expect(fromSession.stdout).toMatch(/\nsession ses_\S+ · \d+ tokens\n$/);
    const answers = JSON.stringify([
      { slot: 1, text: 'A monolith first.' },
      { slot: 2, text: 'Services, for the teams.' },
    ]);
    const fromStdin = await cli(['synthesize', '--question', 'Monolith?', '--answers', '-', '--json'], {}, answers);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({
      sessionId: expect.stringMatching(/^ses_/),
      verdict: { synthesizer: { slot: 1 } },
    });
    const file = join(home, 'answers.json');
    writeFileSync(file, answers);
    expect((await cli(['synthesize', '--question', 'Monolith?', '--answers', file])).code).toBe(0);
    const bad = await cli(['synthesize', '--question', 'Monolith?', '--answers', '-'], {}, '{"slot": 1}');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/must be a JSON array/);
    expect((await cli(['synthesize'])).code).toBe(2);
    expect((await cli(['synthesize', 'ses_doesnotexist0000000000'])).code).toBe(6);
  });

  it('continue streams an interrupted session to its end: the kept rounds, then the rest live', async () => {
    const d = await storeInterrupted(server.sessions.store, server.user.id);
    const run = await cli(['continue', d.session.id]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Round 1\/3/);
    expect(run.stdout).toMatch(/Round 3\/3/);
    expect(run.stdout).toMatch(/\ncompleted · \d+ tokens/);
    const again = await cli(['continue', d.session.id]);
    expect(again.code).toBe(6);
    expect(again.stderr).toMatch(/conflict/);
  });

  it('Ctrl-C cancels the debate on the server', async () => {
    const slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '30' });
    try {
      const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', BIN, 'debate', 'Interrupt me', '--json'], {
        cwd: ROOT,
        env: baseEnv({ CONSILIUM_URL: slow.baseUrl, CONSILIUM_TOKEN: slow.token }),
      });
      let stdout = '';
      let stderr = '';
      child.stderr!.on('data', (d) => {
        stderr += d;
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await new Promise<void>((resolve) =>
        child.stdout!.on('data', (d) => {
          stdout += d;
          if (stdout.includes('"answer.delta"')) resolve();
        }),
      );
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toMatch(/cancelled; session ses_\S+ stops on the server/);
      const sessionId = (JSON.parse(stdout.split('\n')[0]!) as { sessionId: string }).sessionId;
      expect(await settledStatus(slow, sessionId)).toBe('cancelled');
    } finally {
      await slow.close();
    }
  });

  it('Ctrl-C cancels a follow-up on the server and names the session it followed', async () => {
    const slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '30' });
    try {
      const env = baseEnv({ CONSILIUM_URL: slow.baseUrl, CONSILIUM_TOKEN: slow.token });
      const parent = (await (
        await slow.fetch('/ask/anthropic', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ question: 'First?', maxOutputTokens: 2 }),
        })
      ).json()) as { sessionId: string };
      const child = spawn(process.execPath, ['--import', 'tsx', BIN, 'follow-up', parent.sessionId, 'Then?', '--mode', 'deep'], {
        cwd: ROOT,
        env,
      });
      let stderr = '';
      child.stderr!.on('data', (d) => {
        stderr += d;
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // Wait until the follow-up runs on the server, then press Ctrl-C.
      let running: { id: string; status: string } | undefined;
      while (!running) {
        await new Promise((r) => setTimeout(r, 50));
        const page = (await (await slow.fetch('/sessions')).json()) as { items: { id: string; status: string }[] };
        running = page.items.find((s) => s.id !== parent.sessionId && s.status === 'running');
      }
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain(`cancelled; the follow-up of ${parent.sessionId} stops on the server`);
      expect(await settledStatus(slow, running!.id)).toBe('cancelled');
    } finally {
      await slow.close();
    }
  });

  it('stops quietly when stdout closes (| head), cancelling the debate on the server', async () => {
    const slow = await startServer({ CONSILIUM_OFFLINE_TOKEN_MS: '30' });
    try {
      const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', BIN, 'debate', 'Pipe me', '--json'], {
        cwd: ROOT,
        env: baseEnv({ CONSILIUM_URL: slow.baseUrl, CONSILIUM_TOKEN: slow.token }),
      });
      let stderr = '';
      child.stderr!.on('data', (d) => {
        stderr += d;
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // As `head -1` does: read the first line, then close the pipe.
      const first = await new Promise<string>((resolve) => {
        let stdout = '';
        child.stdout!.on('data', (d) => {
          stdout += d;
          if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!);
        });
      });
      child.stdout!.destroy();
      expect(await exited).toBe(141);
      expect(stderr).toBe('');
      const sessionId = (JSON.parse(first) as { sessionId: string }).sessionId;
      expect(await settledStatus(slow, sessionId)).toBe('cancelled');
    } finally {
      await slow.close();
    }
  });

  it('under a terminal: colours per slot, redraws in place, and NO_COLOR turns colour off', async () => {
    const debate = "debate 'Tabs or spaces?' --rounds 2";
    // Each slot in the colour of the SDK's table, the one the web UI takes too: 256 colours, or exact in 24-bit.
    const coloured = await underPty(debate);
    for (const [i, provider] of ['anthropic', 'openai', 'deepseek', 'google', 'xai'].entries()) {
      expect(coloured).toContain(`${ESC}[${hexSgr(SLOT_COLOURS[i]!.dark, false)}m${i + 1} ${provider}`);
    }
    const truecolor = await underPty(debate, { COLORTERM: 'truecolor' });
    expect(truecolor).toContain(`${ESC}[38;2;255;155;107m1 anthropic`); // #ff9b6b, orange as in the UI
    expect(truecolor).toContain(`${ESC}[38;2;212;155;255m4 google`); // #d49bff, purple
    expect(truecolor).toContain(`${ESC}[38;2;255;138;184m5 xai`); // #ff8ab8, crimson
    const light = await underPty(debate, { COLORTERM: 'truecolor', COLORFGBG: '0;15' });
    expect(light).toContain(`${ESC}[38;2;179;71;29m1 anthropic`); // #b3471d, the light theme's
    expect(coloured).toMatch(new RegExp(`${ESC}\\[\\d+F`)); // cursor back up to redraw the block
    expect(coloured).toContain(`${ESC}[2K`);
    expect(coloured).toMatch(/Round 2\/2 · 5\/5 answered/);
    expect(coloured).toMatch(/Verdict/);
    const plain = await underPty(debate, { NO_COLOR: '1' });
    expect(plain).not.toMatch(new RegExp(`${ESC}\\[\\d+m`));
    expect(plain).toMatch(new RegExp(`${ESC}\\[\\d+F`)); // still live, just without colour
    // TERM=dumb cannot move the cursor: plain lines, each answer once complete.
    const dumb = await underPty(debate, { TERM: 'dumb' });
    expect(dumb).not.toMatch(new RegExp(`${ESC}\\[\\d*[FK]`));
    expect(dumb).toMatch(/Round 2\/2 · final/);
    // A terminal that reports 0 columns is drawn 80 wide, not 10.
    const zero = await underPty(debate, {}, 'stty cols 0;');
    const widths = zero
      .split(/\r?\n/)
      .filter((l) => l.includes(`${ESC}[2K`))
      .map((l) => l.replace(new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g'), '').length);
    expect(Math.max(...widths)).toBeGreaterThan(40);
  });
});

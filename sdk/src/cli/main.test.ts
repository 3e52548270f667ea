import { describe, expect, it } from 'vitest';
import { EXIT, type Io } from './context.js';
import { hoistGlobals, main } from './main.js';

/** Runs the client in this process; `fetch` stands in for the network, where a test needs an answer. */
async function run(args: string[], options: { env?: Record<string, string>; fetch?: typeof fetch; isTTY?: boolean } = {}) {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: {
      write: (t) => {
        stdout += t;
      },
      isTTY: options.isTTY ?? false,
    },
    stderr: {
      write: (t) => {
        stderr += t;
      },
    },
    env: { CONSILIUM_CONFIG: '/nonexistent/consilium/config.json', ...options.env },
    readStdin: async () => '',
    onInterrupt: () => () => {},
    ...(options.fetch && { fetch: options.fetch }),
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** A network that refuses every connection, as undici reports it. */
const refusing: typeof fetch = async () => {
  throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
};

describe('consilium arguments', () => {
  it('takes the global options before the command too', () => {
    expect(hoistGlobals(['--url', 'http://x', '--json', 'ask', 'hi'])).toEqual(['ask', 'hi', '--url', 'http://x', '--json']);
    expect(hoistGlobals(['--token=t', 'sessions'])).toEqual(['sessions', '--token=t']);
    expect(hoistGlobals(['ask', '--url', 'u'])).toEqual(['ask', '--url', 'u']);
    expect(() => hoistGlobals(['--slot', '2', 'ask'])).toThrow(/unknown option: --slot/);
    expect(() => hoistGlobals(['--url'])).toThrow(/--url needs a value/);
  });

  it('says a mistyped option is unknown, not that it needs a value', async () => {
    for (const args of [
      ['sessions', '--jsn'],
      ['ask', 'q', '--bogus'],
    ]) {
      const result = await run(args);
      expect(result.code).toBe(EXIT.usage);
      expect(result.stderr).toMatch(/unknown option: --(jsn|bogus)/);
      expect(result.stderr).not.toMatch(/needs a value/);
    }
  });

  it('bare `consilium` is a usage error: one line on stderr naming the commands and pointing to --help', async () => {
    const bare = await run([]);
    expect(bare).toMatchObject({ code: EXIT.usage, stdout: '' });
    expect(bare.stderr).toBe(
      'consilium: missing the command (login, ask, debate, parallel, follow-up, continue, synthesize, sessions, eval, wiki, mcp) (see consilium --help)\n',
    );
    const onlyGlobals = await run(['--json']);
    expect(onlyGlobals).toMatchObject({ code: EXIT.usage, stdout: '' });
    const help = await run(['--help']);
    expect(help).toMatchObject({ code: EXIT.ok, stderr: '' });
    expect(help.stdout).toContain('$XDG_CONFIG_HOME/consilium/config.json');
  });

  it("a usage error is one line pointing to the help; a command's --help is its own part; typos get suggestions", async () => {
    const bad = await run(['debate', 'Why?', '--rounds', 'many']);
    expect(bad).toMatchObject({ code: EXIT.usage, stdout: '' });
    expect(bad.stderr).toBe('consilium: --rounds must be a whole number from 1 to 99 (see consilium debate --help)\n');
    const unknown = await run(['debat', 'Why?']);
    expect(unknown.stderr).toBe('consilium: unknown command: debat (did you mean debate?) (see consilium --help)\n');
    const option = await run(['parallel', 'Why?', '--slot', '2']);
    expect(option.stderr.trim().split('\n')).toHaveLength(1);
    const help = await run(['parallel', '--help']);
    expect(help.stdout).toMatch(/^Usage:\n {2}parallel "<question>" \[--slots N,N…\] \[--full\] \[--wiki SOURCE\]\n/);
    expect(help.stdout).not.toContain('follow-up <session>');
    expect(help.stdout).toContain('--no-color');
    const wiki = await run(['wiki', 'build', 'alpages', '--limit', '5']);
    expect(wiki).toMatchObject({ code: EXIT.usage });
    expect(wiki.stderr).toContain('unknown wiki module: alpages (did you mean allpages');
  });

  it('a server URL that is not http(s) is a usage error, wherever it came from', async () => {
    for (const [args, env, where] of [
      [['ask', 'q', '--url', 'notaurl'], {}, /--url is not a URL: notaurl/],
      [['sessions', '--url', 'ftp://example.org'], {}, /--url must be an http or https URL, not ftp:/],
      [['sessions'], { CONSILIUM_URL: 'ftp://example.org' }, /CONSILIUM_URL must be an http or https URL/],
      [['login', '--url', 'notaurl', '--token', 't'], {}, /--url is not a URL/],
    ] as const) {
      const result = await run([...args], { env, fetch: refusing });
      expect(result.code, result.stderr).toBe(EXIT.usage);
      expect(result.stderr).toMatch(where);
    }
  });

  it('rejects flags the command would ignore', async () => {
    const single = await run(['follow-up', 'ses_1', 'q', '--mode', 'single', '--slots', '1,2']);
    expect(single.code).toBe(EXIT.usage);
    expect(single.stderr).toMatch(/--slots does not apply to --mode single/);
    expect((await run(['follow-up', 'ses_1', 'q', '--mode', 'parallel', '--rounds', '2'])).code).toBe(EXIT.usage);
    const login = await run(['login', '--username', 'admin', '--token', 't']);
    expect(login.code).toBe(EXIT.usage);
    expect(login.stderr).toMatch(/give --token or --username, not both/);
    expect((await run(['login', '--token', 't', '--password-stdin'])).stderr).toMatch(/--password-stdin goes with --username/);
  });
});

describe('consilium errors', () => {
  it('a network error names the server, and hints at login when it is the default URL', async () => {
    const byDefault = await run(['ask', 'q'], { fetch: refusing });
    expect(byDefault.code).toBe(EXIT.network);
    expect(byDefault.stderr).toContain('Network error: fetch failed (ECONNREFUSED) talking to http://127.0.0.1:8787');
    expect(byDefault.stderr).toContain('consilium login --url URL');
    const given = await run(['ask', 'q'], { fetch: refusing, env: { CONSILIUM_URL: 'http://10.0.0.1:1' } });
    expect(given.stderr).toContain('talking to http://10.0.0.1:1');
    expect(given.stderr).not.toContain('consilium login');
  });

  it('a connection lost mid-debate names the session', async () => {
    // As the server sends it (recorded from the offline providers).
    const slot = (n: number, provider: string) => ({
      slot: n,
      provider,
      model: 'm',
      strength: 's',
      status: 'offline',
      api: 'native',
    });
    const started = {
      v: 1,
      sessionId: 'ses_01M870G9Q81X031S7JQKXNW7JA',
      seq: 1,
      ts: '2026-11-24T14:49:05.001Z',
      type: 'session.started',
      mode: 'deep',
      question: 'q',
      roundsRequested: 2,
      slots: [slot(1, 'anthropic'), slot(2, 'openai')],
    };
    const dying: typeof fetch = async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(`id: 1\nevent: session.started\ndata: ${JSON.stringify(started)}\n\n`));
            setTimeout(() => controller.error(new TypeError('terminated', { cause: { code: 'UND_ERR_SOCKET' } })), 10);
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const result = await run(['debate', 'q', '--json'], { fetch: dying, env: { CONSILIUM_URL: 'http://127.0.0.1:1' } });
    expect(result.code, result.stderr).toBe(EXIT.network);
    expect(result.stderr).toContain(
      'Network error: terminated (UND_ERR_SOCKET) talking to http://127.0.0.1:1 [session ses_01M870G9Q81X031S7JQKXNW7JA]',
    );
    expect(result.stderr).toContain('consilium sessions show ses_01M870G9Q81X031S7JQKXNW7JA');
  });

  it('an answer outside the contract is summed up in a line, naming the request', async () => {
    const session = { id: 'ses_01M870G9Q81X031S7JQKXNW7JA', rounds: Array.from({ length: 50 }, () => ({ bad: true })) };
    const broken: typeof fetch = async () => Response.json(session);
    const result = await run(['sessions', 'show', session.id], { fetch: broken, env: { CONSILIUM_URL: 'http://127.0.0.1:1' } });
    expect(result.code).toBe(EXIT.server);
    expect(result.stderr).toMatch(/^consilium: The server's answer does not match the contract: .+ \(and \d+ more issues\) /);
    expect(result.stderr).toContain(`(GET /sessions/${session.id} at http://127.0.0.1:1)`);
    expect(result.stderr.length).toBeLessThan(500);
  });

  it('a wrong password at login says so, not "sign in with consilium login"', async () => {
    const refused: typeof fetch = async () =>
      new Response(JSON.stringify({ type: 'about:blank', title: 'Unauthorized', status: 401, code: 'unauthorized' }), {
        status: 401,
        headers: { 'content-type': 'application/problem+json' },
      });
    const result = await run(['login', '--url', 'http://127.0.0.1:1', '--username', 'admin'], {
      fetch: refused,
      env: { CONSILIUM_PASSWORD: 'wrong' },
    });
    expect(result.code).toBe(EXIT.auth);
    expect(result.stderr).toMatch(/check the username and password/);
    expect(result.stderr).not.toMatch(/sign in with/);
  });
});

describe('consilium wiki build', () => {
  it('a parameter that takes a value is a usage error without one; a boolean one stands alone', async () => {
    const bare = await run(['wiki', 'build', 'allpages', '--prefix']);
    expect(bare.code).toBe(EXIT.usage);
    expect(bare.stderr).toMatch(/--prefix needs a value \(string\)/);
    expect(bare.stdout).toBe('');
    const before = await run(['wiki', 'build', 'allpages', '--prefix', '--limit', '5']);
    expect(before.code).toBe(EXIT.usage);
    const boolean = await run(['wiki', 'build', 'recentchanges', '--toponly', '--limit', '5', '--json']);
    expect(boolean.code, boolean.stderr).toBe(EXIT.ok);
    expect(JSON.parse(boolean.stdout)).toMatchObject({ params: { rctoponly: '1', rclimit: '5' } });
    const flag = await run(['wiki', 'build', 'allpages', '--limit', '5', '--json']);
    expect(JSON.parse(flag.stdout)).toMatchObject({ params: { aplimit: '5' } });
  });

  it('--help after a module lists its parameters', async () => {
    const help = await run(['wiki', 'build', 'allpages', '--help']);
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toMatch(/Parameters of list=allpages/);
    expect(help.stdout).toMatch(/--prefix <value> +string/);
    expect(help.stdout).toMatch(/--filterredir <value> +all\|nonredirects\|redirects/);
  });

  it('echoes no control characters from the arguments', async () => {
    const hostile = 'a\u001b]0;PWN\u0007\u001b[2Jb';
    const result = await run(['wiki', 'build', 'backlinks', '--title', hostile]);
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toMatch(/invalid wiki query/);
    expect([...result.stderr.trimEnd()].filter((c) => /\p{Cc}/u.test(c) && c !== '\n')).toEqual([]);
    const module = await run(['wiki', 'build', `x${hostile}`]);
    expect(module.code).toBe(EXIT.usage);
    expect([...module.stderr].filter((c) => /\p{Cc}/u.test(c) && c !== '\n')).toEqual([]);
  });

  it('--json escapes what a terminal would act on, and stays the same data', async () => {
    const prefix = 'x\u202eevil\u009b2J\u2028y';
    const result = await run(['wiki', 'build', 'allpages', '--prefix', prefix, '--json']);
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stdout).not.toMatch(/[\u007f-\u009f\u2028\u202e]/);
    expect(result.stdout).toContain('\\u202e');
    expect(JSON.parse(result.stdout).params.apprefix).toBe(prefix);
  });
});

describe('consilium with its stdout closed', () => {
  it('stops writing, exits 141 without a word, and closes the debate stream (which cancels it)', async () => {
    const event = (seq: number) => ({
      v: 1,
      sessionId: 'ses_01M870G9Q81X031S7JQKXNW7JA',
      seq,
      ts: '2026-11-24T14:49:05.001Z',
      type: 'answer.delta',
      round: 1,
      slot: 1,
      delta: 'word ',
    });
    let streamSignal: AbortSignal | undefined;
    const endless: typeof fetch = async (input, init) => {
      streamSignal = (init?.signal ?? (input as Request).signal) as AbortSignal;
      let seq = 0;
      return new Response(
        new ReadableStream({
          async pull(controller) {
            await new Promise((r) => setTimeout(r, 5));
            seq += 1;
            controller.enqueue(new TextEncoder().encode(`id: ${seq}\ndata: ${JSON.stringify(event(seq))}\n\n`));
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    };
    let onError: ((error: Error) => void) | undefined;
    const written: string[] = [];
    let stderr = '';
    const io: Io = {
      stdout: {
        write: (t) => {
          written.push(t);
          // The reader goes away after the first line, as `| head -1` does; the stream reports EPIPE.
          if (written.length === 1) setTimeout(() => onError?.(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })), 0);
        },
        on: (_event, listener) => {
          onError = listener;
        },
      },
      stderr: {
        write: (t) => {
          stderr += t;
        },
      },
      env: { CONSILIUM_URL: 'http://127.0.0.1:1', CONSILIUM_CONFIG: '/nonexistent/config.json' },
      readStdin: async () => '',
      onInterrupt: () => () => {},
      fetch: endless,
    };
    const code = await main(['debate', 'q', '--json'], io);
    expect(code).toBe(EXIT.closed);
    expect(stderr).toBe('');
    expect(streamSignal?.aborted).toBe(true);
    expect(written.length).toBeLessThanOrEqual(2);
  });
});

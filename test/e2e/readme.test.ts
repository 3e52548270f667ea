/**
 * The root README's command blocks, pasted as a newcomer would: in a fresh clone after `npm install && npm start`
 * (the first block, which the others assume), every later `sh` block in order, in one bash session, with the
 * password the first start printed typed wherever a block asks for it. Nothing in the blocks is replaced. Where it
 * can, the clone runs in a network namespace of its own, so the server has the README's port (8787) to itself;
 * elsewhere it gets a free port, and the blocks find it through `CONSILIUM_URL`, as the README says.
 * Every curl fails on an HTTP error, so a block the server refuses fails here rather than for the reader.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, freshClone, ROOT } from '../support/process.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const BLOCKS = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const MARK = (n: number) => `::block ${n}::`;

/** Whether this machine lets the test make a network namespace of its own (a user namespace's, or root's). */
function privateNetwork(): string[] | undefined {
  for (const prefix of [
    ['unshare', '-n'],
    ['unshare', '-rn'],
  ]) {
    try {
      execFileSync(prefix[0]!, [...prefix.slice(1), 'true'], { stdio: 'ignore' });
      return prefix;
    } catch {}
  }
  return undefined;
}

let clone: string;
let home: string;
let session: { code: number | null; output: string; perBlock: string[] };

beforeAll(async () => {
  clone = freshClone({ prepare: true });
  home = mkdtempSync(join(tmpdir(), 'consilium-readme-home-'));
  const network = privateNetwork();
  const port = network ? undefined : await freePort();
  // The session as the reader has it: the blocks after the first, one after another, typed into one shell.
  const reads = BLOCKS.slice(1).reduce((n, block) => n + (block.match(/^read /gm)?.length ?? 0), 0);
  const pasted = BLOCKS.slice(1)
    .map((block, i) => `echo '${MARK(i + 1)}'\n${block}`)
    .join('\n');
  writeFileSync(join(home, 'pasted.sh'), `set -eo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n${pasted}`);
  const driver = `
    set -u
    ip link set lo up 2>/dev/null || true   # a network namespace of its own starts with its loopback down
    cd ${JSON.stringify(clone)}
    npm start > npm-start.log 2>&1 &
    npm=$!
    until grep -q ' is serving ' npm-start.log; do
      kill -0 $npm 2>/dev/null || { cat npm-start.log; echo 'npm start exited'; exit 90; }
      sleep 0.1
    done
    password=$(sed -nE 's/^  password: (\\S+)$/\\1/p' npm-start.log)
    for i in $(seq ${reads}); do echo "$password"; done | bash ${JSON.stringify(join(home, 'pasted.sh'))} 2>&1
    code=$?
    kill $npm; wait $npm
    exit $code`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    NPM_CONFIG_UPDATE_NOTIFIER: 'false',
    ...(port !== undefined && { PORT: String(port), CONSILIUM_URL: `http://127.0.0.1:${port}` }),
  };
  session = await new Promise((resolve) => {
    const [file, ...args] = [...(network ?? []), 'bash', '-c', driver];
    execFile(file!, args, { env, timeout: 280_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      const perBlock = BLOCKS.slice(1).map((_, i) => {
        const from = output.indexOf(MARK(i + 1));
        const to = output.indexOf(MARK(i + 2));
        return from < 0 ? '' : output.slice(from, to < 0 ? undefined : to);
      });
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, output, perBlock });
    });
  });
}, 300_000);

afterAll(() => {
  if (clone) rmSync(clone, { recursive: true, force: true });
  if (home) rmSync(home, { recursive: true, force: true });
});

/** The output of the one block that holds `text`. */
const outputOf = (text: string) => {
  const found = BLOCKS.slice(1).flatMap((block, i) => (block.includes(text) ? [i] : []));
  expect(found, `one block holding ${text}`).toHaveLength(1);
  return session.perBlock[found[0]!]!;
};

describe('the README, pasted', () => {
  it('starts with npm install && npm start, which the other blocks assume', () => {
    expect(BLOCKS[0]).toMatch(/^npm install && npm start /);
  });

  it('runs every block as written, signed in with the printed password', () => {
    expect(session.code, session.output).toBe(0);
    expect(
      session.perBlock.every((out) => out !== ''),
      session.output,
    ).toBe(true);
  });

  it('"Signing in": the cookie, and a token made with it for the next block', () => {
    expect(outputOf('export CONSILIUM_TOKEN=')).toMatch(/"username":"admin"/);
    // The providers, then five answers in parallel, with the token the block before made.
    expect(outputOf('$CONSILIUM_TOKEN" $BASE/providers')).toMatch(/"slots":\[[\s\S]*"answers":\[/);
  });

  it('"Using the API": sign in, make a token, ask, debate, stream', () => {
    const out = outputOf('# Sign in: the answer sets the consilium_session cookie');
    expect(out).toContain('"answer"');
    expect(out).toContain('"verdict"');
    expect(out).toMatch(/event: session\.ended\n/);
  });

  it('the terminal: consilium login, a debate, the sessions it stored', () => {
    const out = outputOf('npx consilium login');
    expect(out).toMatch(/^ID +STATUS +MODE +CREATED +QUESTION$/m);
    expect(out).toMatch(/Should we rewrite it in Rust\?/);
  });
});

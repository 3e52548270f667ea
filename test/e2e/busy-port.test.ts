import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captured, envWith, npmStart, runs, signIn, stop, waitForExit, waitForStdout } from '../support/process.js';

/** A first `npm start` on a port already taken must not spend the first admin's one-time password. */

const BANNER = /Consilium \S+ is serving (http:\/\/127\.0\.0\.1:\d+)\n/;
const FIRST_RUN = /First run: created the account "admin"\.\n {2}username: admin\n {2}password: (\S+)\n/;

let dataDir: string;
let blocker: Server;
let busyPort: number;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'consilium-busy-port-'));
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  busyPort = (blocker.address() as { port: number }).port;
});

afterAll(async () => {
  await Promise.all(runs.map(stop));
  await new Promise((resolve) => blocker.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a first start on a busy port', () => {
  it('prints no password and creates no admin; the next start, which serves, prints one that signs in', async () => {
    const failed = npmStart(envWith(dataDir, { HOST: '127.0.0.1', PORT: String(busyPort) }));
    const { code } = await waitForExit(failed);
    expect(code, captured(failed)).toBe(1);
    expect(failed.stderr).toContain(`cannot listen on 127.0.0.1:${busyPort}: EADDRINUSE`);
    expect(failed.stdout).not.toContain('First run');
    expect(failed.stdout).not.toContain('password:');

    const served = npmStart(envWith(dataDir, { HOST: '127.0.0.1', PORT: '0' }));
    const [, baseUrl] = await waitForStdout(served, BANNER);
    const password = FIRST_RUN.exec(served.stdout)?.[1];
    expect(password, captured(served)).toMatch(/^[0-9A-Za-z]{24}$/);
    const admin = await signIn(baseUrl!, 'admin', password!);
    expect(await (await admin.fetch('/auth/me')).json()).toMatchObject({ username: 'admin', role: 'admin' });
    await stop(served);
  });
});

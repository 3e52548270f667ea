/**
 * The SDK reference is built whole or not at all, one build at a time: with a stand-in for typedoc (a Node script
 * that writes into the folder it is given), a build's state as a server reads it, a build stopped or failing
 * midway, and what a build killed with its process leaves for the next one.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSdkReference, claimSdkReferenceBuild, sdkReferenceDir, sdkReferenceState } from './sdk-build.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function freshRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'consilium-sdk-reference-'));
  roots.push(root);
  mkdirSync(join(root, 'docs/api'), { recursive: true });
  return root;
}

/** A builder that writes `index.html` into its folder, then a second page once `go` exists (or at once without it). */
const standIn =
  ({ go, exitCode = 0 }: { go?: string; exitCode?: number } = {}) =>
  (out: string) => ({
    file: process.execPath,
    args: [
      '-e',
      `const fs = require('node:fs');
       fs.mkdirSync(${JSON.stringify(out)}, { recursive: true });
       fs.writeFileSync(${JSON.stringify(join(out, 'index.html'))}, '<h1>Consilium SDK</h1>');
       const finish = () => { fs.writeFileSync(${JSON.stringify(join(out, 'modules.html'))}, 'modules'); process.exit(${exitCode}); };
       ${go ? `const t = setInterval(() => fs.existsSync(${JSON.stringify(go)}) && (clearInterval(t), finish()), 10);` : 'finish();'}`,
    ],
  });

/** Everything beside the reference in docs/api: what a build leaves there. */
const leftovers = (root: string) => readdirSync(join(root, 'docs/api')).filter((name) => name !== 'sdk');

/** Waits for `file` to exist: the event that proves a build is under way. */
async function appears(file: string): Promise<void> {
  while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('the SDK reference', () => {
  it('reads as being built from the claim on, and as built only once the whole build is in place', async () => {
    const root = freshRoot();
    const dir = sdkReferenceDir(root);
    const go = join(root, 'go');
    expect(sdkReferenceState(dir)).toBe('missing');
    const claim = claimSdkReferenceBuild({ root, command: standIn({ go }) })!;
    expect(sdkReferenceState(dir)).toBe('building');
    // One build at a time: a second claim, from this process or another, gets nothing.
    expect(claimSdkReferenceBuild({ root, command: standIn() })).toBeUndefined();
    const build = claim.start();
    await appears(join(dir, `../sdk.${process.pid}.tmp/index.html`));
    // Half written: not where the server reads it.
    expect(existsSync(dir)).toBe(false);
    expect(sdkReferenceState(dir)).toBe('building');
    writeFileSync(go, '');
    expect(await build.done).toBe(true);
    expect(sdkReferenceState(dir)).toBe('built');
    expect(readFileSync(join(dir, 'modules.html'), 'utf8')).toBe('modules');
    expect(leftovers(root)).toEqual([]);
    // Built: nothing to claim, unless forced.
    expect(claimSdkReferenceBuild({ root, command: standIn() })).toBeUndefined();
  });

  it('stopped midway, leaves nothing: no folder, no lock; the next build starts afresh', async () => {
    const root = freshRoot();
    const dir = sdkReferenceDir(root);
    const build = claimSdkReferenceBuild({ root, command: standIn({ go: join(root, 'never') }) })!.start();
    await appears(join(dir, `../sdk.${process.pid}.tmp/index.html`));
    build.stop();
    expect(await build.done).toBe('stopped');
    expect(existsSync(dir)).toBe(false);
    expect(leftovers(root)).toEqual([]);
    expect(sdkReferenceState(dir)).toBe('missing');
    await buildSdkReference({ root, command: standIn() });
    expect(sdkReferenceState(dir)).toBe('built');
  });

  it('failing, says why and leaves nothing', async () => {
    const root = freshRoot();
    const dir = sdkReferenceDir(root);
    const result = await claimSdkReferenceBuild({ root, command: standIn({ exitCode: 2 }) })!.start().done;
    expect(result).toMatch(/ended with exit code 2/);
    expect(sdkReferenceState(dir)).toBe('missing');
    expect(existsSync(dir)).toBe(false);
    expect(leftovers(root)).toEqual([]);
    await expect(buildSdkReference({ root, command: standIn({ exitCode: 3 }) })).rejects.toThrow(/exit code 3/);
  });

  it('killed with its process, leaves a lock and a folder that the next build clears', async () => {
    const root = freshRoot();
    const dir = sdkReferenceDir(root);
    // Another process claims and starts a build, then dies (SIGKILL) before it ends.
    const script = `
      const { claimSdkReferenceBuild } = await import(${JSON.stringify(new URL('./sdk-build.ts', import.meta.url).href)});
      const command = (out) => ({ file: process.execPath, args: ['-e', 'require("node:fs").mkdirSync(' + JSON.stringify(out) + '); setInterval(() => {}, 1000)'] });
      claimSdkReferenceBuild({ root: ${JSON.stringify(root)}, command }).start();`;
    // In a process group of its own, killed whole, as a terminal's Ctrl-\ or a supervisor's SIGKILL would.
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: 'ignore',
      detached: true,
    });
    await appears(join(dir, `../sdk.${child.pid}.tmp`));
    expect(sdkReferenceState(dir)).toBe('building');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    expect(sdkReferenceState(dir)).toBe('missing');
    expect(leftovers(root).sort()).toEqual([`sdk.${child.pid}.tmp`, 'sdk.building']);

    await buildSdkReference({ root, command: standIn() });
    expect(sdkReferenceState(dir)).toBe('built');
    expect(leftovers(root)).toEqual([]);
  });

  it('held by a builder that exited but was never reaped (a zombie), reads as missing and is built afresh', async () => {
    const root = freshRoot();
    const dir = sdkReferenceDir(root);
    // `sh` starts `true` and becomes `sleep`, which never reaps it: `true` stays a zombie while `sleep` runs.
    const parent = spawn('sh', ['-c', 'true & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (d) => resolve(String(d)))));
    try {
      while (!/\)\s+Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) await new Promise((r) => setTimeout(r, 10));
      writeFileSync(`${dir}.building`, String(pid));
      expect(sdkReferenceState(dir)).toBe('missing');
      await buildSdkReference({ root, command: standIn() });
      expect(sdkReferenceState(dir)).toBe('built');
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('rebuilds a folder that never got its stamp (a build interrupted before it was whole), and a built one when forced', async () => {
    const root = freshRoot();
    const dir = sdkReferenceDir(root);
    mkdirSync(dir);
    writeFileSync(join(dir, 'index.html'), 'half');
    expect(sdkReferenceState(dir)).toBe('missing');
    await buildSdkReference({ root, command: standIn() });
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toBe('<h1>Consilium SDK</h1>');
    writeFileSync(join(dir, 'index.html'), 'old');
    await buildSdkReference({ root, command: standIn() });
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toBe('old');
    await buildSdkReference({ root, command: standIn(), force: true });
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toBe('<h1>Consilium SDK</h1>');
    expect(leftovers(root)).toEqual([]);
  });
});

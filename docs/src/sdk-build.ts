/**
 * The SDK reference (`docs/api/sdk/`: typedoc with `docs/typedoc.json`), which the server serves at `/docs/sdk/`.
 * Built whole or not at all: typedoc writes into a folder of its own (`sdk.<pid>.tmp`), which gets a stamp and is
 * renamed into place once typedoc is done; and under a lock (`sdk.building`, holding the builder's pid), so one build
 * runs at a time and a server can say that one runs. A build killed midway leaves its folder and the lock behind:
 * the next build clears both, since the lock's process is gone, and a folder without the stamp is never served.
 *
 * `npm start` builds it in the background once the server listens (`server/src/main.ts`); `npm run docs` rebuilds it
 * (`build-sdk.ts`). No code runs on import: the server's bundle carries this module.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export type SdkReferenceState = 'built' | 'building' | 'missing';

/** Written last into a finished build: a folder without it is a build that never finished. */
const STAMP = '.built';

/** Where the reference goes under the repository `root`. */
export const sdkReferenceDir = (root: string) => join(root, 'docs/api/sdk');

const lockOf = (dir: string) => `${dir}.building`;

/** The reference in `dir`: whole, being built by a live process, or neither. */
export function sdkReferenceState(dir: string): SdkReferenceState {
  if (existsSync(join(dir, STAMP))) return 'built';
  return lockHolder(dir) === undefined ? 'missing' : 'building';
}

/** The pid of the live process that holds `dir`'s lock, if one does. */
export function lockHolder(dir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(lockOf(dir), 'utf8'));
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
  return zombie(pid) ? undefined : pid;
}

/**
 * Whether `pid` has exited but is not yet reaped (Linux): a builder killed with its parent stays a zombie until
 * something reaps it, and signal 0 still reaches it, yet it builds nothing.
 */
function zombie(pid: number): boolean {
  try {
    // The state follows the command's closing parenthesis: "pid (comm) S ...".
    return /\)\s+Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Takes `dir`'s lock for this process; false if a live process holds it. A dead one's lock and folders are cleared. */
function lock(dir: string): boolean {
  const file = lockOf(dir);
  // Written whole under another name first, then linked: whoever reads the lock finds a pid, never an empty file.
  const mine = `${file}.${process.pid}`;
  mkdirSync(dirname(dir), { recursive: true });
  writeFileSync(mine, String(process.pid));
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        linkSync(mine, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || lockHolder(dir) !== undefined) return false;
        rmSync(file, { force: true });
      }
    }
  } finally {
    rmSync(mine, { force: true });
  }
  if (lockHolder(dir) !== process.pid) return false;
  // What builds that never finished left, by processes that are gone (this one holds the lock now).
  const base = basename(dir);
  for (const name of readdirSync(dirname(dir))) {
    const pid = new RegExp(`^${base}\\.(?:(\\d+)\\.(?:tmp|old)|building\\.(\\d+))$`).exec(name)?.slice(1).find(Boolean);
    if (pid !== undefined && Number(pid) !== process.pid) rmSync(join(dirname(dir), name), { recursive: true, force: true });
  }
  return true;
}

const unlock = (dir: string) => {
  if (lockHolder(dir) === process.pid) rmSync(lockOf(dir), { force: true });
};

/** Puts the finished build in `temporary` in place of `dir`, whatever `dir` held. */
function install(temporary: string, dir: string): void {
  writeFileSync(join(temporary, STAMP), new Date().toISOString());
  const old = `${dir}.${process.pid}.old`;
  if (existsSync(dir)) renameSync(dir, old);
  renameSync(temporary, dir);
  rmSync(old, { recursive: true, force: true });
}

export interface SdkReferenceBuildOptions {
  /** The repository: its `node_modules/.bin/typedoc`, `docs/typedoc.json` and `docs/api/`. */
  root: string;
  /** What writes the reference into the folder it is given; typedoc by default. */
  command?: (out: string) => { file: string; args: string[] };
  /** Rebuild a reference that is built already. */
  force?: boolean;
}

export interface SdkReferenceBuild {
  /** Resolves once the build is over: with true when the reference is in place, else with why not. */
  readonly done: Promise<true | string>;
  /** Ends the build at once: the builder is killed, and its folder and the lock are removed. */
  stop(): void;
}

const typedoc = (root: string) => (out: string) => ({
  file: join(root, 'node_modules/.bin/typedoc'),
  args: ['--options', join(root, 'docs/typedoc.json'), '--out', out, '--logLevel', 'Warn'],
});

/** Whether typedoc is installed in `root` (a production install without dev dependencies has none). */
export const canBuildSdkReference = (root: string) => existsSync(typedoc(root)('').file);

export interface SdkReferenceClaim {
  /** Runs the build. */
  start(): SdkReferenceBuild;
  /** Gives the lock up without building. */
  release(): void;
}

/**
 * Takes the lock, so the reference reads as being built from now on, unless it is built already (and not
 * `force`) or a live process builds it: then undefined.
 */
export function claimSdkReferenceBuild(options: SdkReferenceBuildOptions): SdkReferenceClaim | undefined {
  const dir = sdkReferenceDir(options.root);
  if (!options.force && sdkReferenceState(dir) === 'built') return undefined;
  if (!lock(dir)) return undefined;
  const temporary = `${dir}.${process.pid}.tmp`;
  return {
    start: () => run(dir, (options.command ?? typedoc(options.root))(temporary), temporary),
    release: () => unlock(dir),
  };
}

function run(dir: string, { file, args }: { file: string; args: string[] }, temporary: string): SdkReferenceBuild {
  let child: ChildProcess | undefined;
  let stopped = false;
  let output = '';
  const clear = () => {
    rmSync(temporary, { recursive: true, force: true });
    unlock(dir);
  };
  const done = new Promise<true | string>((resolve) => {
    child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-2000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('error', (error) => {
      clear();
      resolve(`${file} did not run: ${error.message}`);
    });
    child.once('exit', (code, signal) => {
      if (stopped || code !== 0) {
        clear();
        resolve(stopped ? 'stopped' : `${basename(file)} ended with ${signal ?? `exit code ${code}`}: ${output.trim()}`);
        return;
      }
      try {
        install(temporary, dir);
        resolve(true);
      } catch (error) {
        resolve(`the reference could not be put in place: ${(error as Error).message}`);
      } finally {
        clear();
      }
    });
  });
  return {
    done,
    stop() {
      if (stopped) return;
      stopped = true;
      if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      // At once, not on the exit event: a process stopping may exit before that comes.
      clear();
    },
  };
}

/**
 * Builds the reference unless it is built (always with `force`), waiting for a build another process runs rather
 * than starting a second; throws if it cannot be built.
 */
export async function buildSdkReference(options: SdkReferenceBuildOptions): Promise<void> {
  const dir = sdkReferenceDir(options.root);
  for (;;) {
    if (!options.force && sdkReferenceState(dir) === 'built') return;
    const claim = claimSdkReferenceBuild(options);
    if (claim) {
      const result = await claim.start().done;
      if (result !== true) throw new Error(`the SDK reference is not built: ${result}`);
      return;
    }
    if (sdkReferenceState(dir) !== 'building') throw new Error(`the SDK reference's lock ${lockOf(dir)} cannot be taken`);
    // Another process builds it: done when its lock is gone.
    while (sdkReferenceState(dir) === 'building') await new Promise((resolve) => setTimeout(resolve, 500));
    if (sdkReferenceState(dir) === 'built') return;
  }
}

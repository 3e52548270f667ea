/**
 * A small disk for a test's data: a tmpfs of `bytes` mounted in a temp directory (root on Linux), filled and freed on
 * demand. Where the machine cannot mount one, `undefined`: the test then fails its writes at the store's edge with
 * the error a full disk gives (`SQLITE_FULL`), as the issue it proves allows.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Fills what is left, so every write from now on fails with ENOSPC (SQLite: SQLITE_FULL). */
  fill(): void;
  /** Gives the space back. */
  free(): void;
  unmount(): void;
}

export function smallDisk(bytes = 8 * 1024 * 1024): SmallDisk | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'consilium-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      // Chunks until the disk says no: what is left then is nothing.
      const chunk = Buffer.alloc(64 * 1024, 1);
      for (let i = 0; ; i++) {
        try {
          writeFileSync(`${filler}-${i}`, chunk);
        } catch {
          try {
            writeFileSync(`${filler}-last`, Buffer.alloc(1));
          } catch {
            // Full to the byte.
          }
          return;
        }
      }
    },
    free() {
      for (const name of execFileSync('ls', [dir], { encoding: 'utf8' }).split('\n')) {
        if (name.startsWith('filler')) unlinkSync(join(dir, name));
      }
    },
    unmount() {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

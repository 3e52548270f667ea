import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StoreError } from '../../sessions/store.js';

/**
 * Creates `dir` and its missing parents, one level at a time. Not `mkdir({ recursive: true })`: on a path
 * under /proc (where mkdir answers ENOENT for a parent that exists) Node's recursive mkdir loops forever,
 * spinning a core instead of failing.
 */
export async function makeDirectory(dir: string): Promise<void> {
  const missing: string[] = [];
  let at = dir;
  for (;;) {
    const info = await stat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw fail(dir, at, error);
    });
    if (info) {
      if (!info.isDirectory())
        throw new StoreError('unavailable', `cannot create the directory ${dir}: ${at} is not a directory`);
      break;
    }
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const path of missing) {
    await mkdir(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw fail(dir, path, error);
    });
  }
}

const fail = (dir: string, at: string, error: NodeJS.ErrnoException) =>
  new StoreError('unavailable', `cannot create the directory ${dir}: ${error.code ?? error.message} at ${at}`, { cause: error });

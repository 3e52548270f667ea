import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../sessions/store.js';
import { makeDirectory } from './directory.js';

const root = mkdtempSync(join(tmpdir(), 'consilium-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('makeDirectory', () => {
  it('creates every missing level, and accepts a directory that exists', async () => {
    const dir = join(root, 'a', 'b', 'c');
    await makeDirectory(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    await makeDirectory(dir);
    await makeDirectory(root);
  });

  it('fails with a StoreError naming the level, under a file', async () => {
    const file = join(root, 'file');
    writeFileSync(file, '');
    await expect(makeDirectory(join(file, 'x'))).rejects.toThrow(
      new StoreError('unavailable', `cannot create the directory ${join(file, 'x')}: ${file} is not a directory`),
    );
  });

  it('fails, and does not spin, under /proc (where recursive mkdir loops forever)', async () => {
    await expect(makeDirectory('/proc/nope/deeper')).rejects.toThrow(
      /^cannot create the directory \/proc\/nope\/deeper: ENOENT at \/proc\/nope$/,
    );
  });
});

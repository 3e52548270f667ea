import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configPath, DEFAULT_URL, readConfig, resolveConnection, writeConfig } from './config.js';

const dir = mkdtempSync(join(tmpdir(), 'consilium-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the saved config', () => {
  it('lives in CONSILIUM_CONFIG, else XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configPath({ CONSILIUM_CONFIG: '/x/c.json', HOME: '/h' })).toBe('/x/c.json');
    expect(configPath({ XDG_CONFIG_HOME: '/xdg', HOME: '/h' })).toBe('/xdg/consilium/config.json');
    expect(configPath({ HOME: '/h' })).toBe('/h/.config/consilium/config.json');
  });

  it('is written 0600 in a 0700 folder, whatever the umask, and read back', () => {
    const path = join(dir, 'nested', 'config.json');
    const umask = process.umask(0o022);
    try {
      writeConfig(path, { url: 'http://h:1', token: 'secret' });
    } finally {
      process.umask(umask);
    }
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
    expect(readConfig(path)).toEqual({ url: 'http://h:1', token: 'secret' });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ url: 'http://h:1', token: 'secret' });
    expect(readConfig(join(dir, 'missing.json'))).toEqual({});
  });

  it('is overridden by the environment, and that by flags; empty values count as unset', () => {
    const saved = { url: 'http://saved', token: 'saved-token' };
    expect(resolveConnection({}, {}, {})).toEqual({ url: DEFAULT_URL, token: undefined });
    expect(resolveConnection({}, {}, saved)).toEqual(saved);
    expect(resolveConnection({}, { CONSILIUM_URL: 'http://env', CONSILIUM_TOKEN: '' }, saved)).toEqual({
      url: 'http://env',
      token: 'saved-token',
    });
    expect(resolveConnection({ url: 'http://flag', token: 't' }, { CONSILIUM_URL: 'http://env' }, saved)).toEqual({
      url: 'http://flag',
      token: 't',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { UsageError } from '../terminal/usage.js';
import { checkServerUrl, urlSource } from './context.js';

describe('the server URL', () => {
  it('takes an http(s) URL, and names where a bad one came from', () => {
    expect(checkServerUrl('https://consilium.example/api', 'flag', '/cfg.json')).toBe('https://consilium.example/api');
    expect(() => checkServerUrl('ftp://x', 'env', '/cfg.json')).toThrow(
      new UsageError('CONSILIUM_URL must be an http or https URL, not ftp: (e.g. http://127.0.0.1:8787)'),
    );
    expect(() => checkServerUrl('nope', 'saved', '/cfg.json')).toThrow(/^the URL saved in \/cfg.json is not a URL: nope/);
  });

  it('comes from the flag, then CONSILIUM_URL, then the saved config, then the default', () => {
    expect(urlSource('http://a', { CONSILIUM_URL: 'http://b' }, { url: 'http://c' })).toBe('flag');
    expect(urlSource(undefined, { CONSILIUM_URL: 'http://b' }, { url: 'http://c' })).toBe('env');
    expect(urlSource(undefined, {}, { url: 'http://c' })).toBe('saved');
    expect(urlSource(undefined, {}, {})).toBe('default');
  });
});

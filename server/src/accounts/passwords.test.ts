/**
 * Password hashes: the recorded format, verification against the parameters a hash was made with,
 * malformed hashes matching nothing, when a hash needs replacing, and the decoy for unknown users.
 * Small scrypt parameters keep it fast; the default's cost is a configuration, not behaviour.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCRYPT, decoyHash, hashPassword, needsRehash, verifyPassword } from './passwords.js';
import { hashSecret, randomId, randomPassword, randomSecret } from './secrets.js';

const SMALL = { N: 16, r: 1, p: 1 };

describe('hashPassword / verifyPassword', () => {
  it('records scrypt, its parameters, a 16-byte salt and a 32-byte key, and verifies only the same password', async () => {
    const hash = await hashPassword('correct horse', { N: 32, r: 2, p: 3 });
    const parts = hash.split('$');
    expect(parts.slice(0, 4)).toEqual(['scrypt', '32', '2', '3']);
    expect(Buffer.from(parts[4]!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(parts[5]!, 'base64url')).toHaveLength(32);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsf', hash)).toBe(false);
    expect(await verifyPassword('', hash)).toBe(false);
    // A fresh salt each time: the same password never hashes alike.
    expect(await hashPassword('correct horse', SMALL)).not.toBe(await hashPassword('correct horse', SMALL));
  });

  it('verifies with the parameters recorded in the hash, not the current ones', async () => {
    const old = await hashPassword('pw-one-two', { N: 8, r: 1, p: 1 });
    // Changing a recorded parameter derives another key: no match.
    expect(await verifyPassword('pw-one-two', old.replace('scrypt$8$1$1$', 'scrypt$16$1$1$'))).toBe(false);
    expect(await verifyPassword('pw-one-two', old.replace('scrypt$8$1$1$', 'scrypt$8$2$1$'))).toBe(false);
    expect(await verifyPassword('pw-one-two', old.replace('scrypt$8$1$1$', 'scrypt$8$1$2$'))).toBe(false);
    expect(await verifyPassword('pw-one-two', old)).toBe(true);
  });

  it('hashes the NFC form, so composed and decomposed input match', async () => {
    const hash = await hashPassword('caf\u00e9-password', SMALL);
    expect(await verifyPassword('cafe\u0301-password', hash)).toBe(true);
  });

  it('a malformed hash matches nothing, and needs replacing', async () => {
    const good = await hashPassword('pw-one-two', SMALL);
    const [, N, r, p, salt, key] = good.split('$');
    const malformed = [
      '',
      'plain-text',
      `bcrypt$${N}$${r}$${p}$${salt}$${key}`,
      `scrypt$${N}$${r}$${p}$${salt}`,
      `scrypt$${N}$${r}$${p}$${salt}$${key}$extra`,
      `scrypt$15$${r}$${p}$${salt}$${key}`, // N not a power of two
      `scrypt$0$${r}$${p}$${salt}$${key}`,
      `scrypt$-16$${r}$${p}$${salt}$${key}`,
      `scrypt$16.5$${r}$${p}$${salt}$${key}`,
      `scrypt$${N}$0$${p}$${salt}$${key}`,
      `scrypt$${N}$x$${p}$${salt}$${key}`,
      `scrypt$${N}$${r}$0$${salt}$${key}`,
      `scrypt$${N}$${r}$${p}$$${key}`,
      `scrypt$${N}$${r}$${p}$${salt}$`,
    ];
    for (const hash of malformed) {
      expect(await verifyPassword('pw-one-two', hash), hash).toBe(false);
      expect(needsRehash(hash, SMALL), hash).toBe(true);
    }
  });
});

describe('needsRehash', () => {
  it('is true when any recorded parameter is below the wanted one, false when none is', async () => {
    const hash = await hashPassword('pw-one-two', { N: 16, r: 2, p: 2 });
    expect(needsRehash(hash, { N: 16, r: 2, p: 2 })).toBe(false);
    expect(needsRehash(hash, { N: 8, r: 1, p: 1 })).toBe(false);
    expect(needsRehash(hash, { N: 32, r: 2, p: 2 })).toBe(true);
    expect(needsRehash(hash, { N: 16, r: 3, p: 2 })).toBe(true);
    expect(needsRehash(hash, { N: 16, r: 2, p: 3 })).toBe(true);
    // Against the default parameters by default.
    expect(needsRehash(hash)).toBe(true);
    const { N, r, p } = DEFAULT_SCRYPT;
    expect(needsRehash(`scrypt$${N}$${r}$${p}$${hash.split('$').slice(4).join('$')}`)).toBe(false);
  });
});

describe('decoyHash', () => {
  it('is a well-formed hash of the parameters asked for, which no ordinary password matches, made once per parameters', async () => {
    const decoy = await decoyHash(SMALL);
    expect(decoy).toMatch(/^scrypt\$16\$1\$1\$/);
    expect(needsRehash(decoy, SMALL)).toBe(false);
    expect(await verifyPassword('', decoy)).toBe(false);
    expect(await verifyPassword('password', decoy)).toBe(false);
    expect(await decoyHash(SMALL)).toBe(decoy);
    expect(decoyHash(SMALL)).toBe(decoyHash(SMALL));
    const other = await decoyHash({ N: 32, r: 1, p: 1 });
    expect(other).toMatch(/^scrypt\$32\$1\$1\$/);
  });
});

describe('secrets', () => {
  it('ids are the prefix, `_` and 20 alphanumerics (or the length asked), each different', () => {
    const ids = new Set(Array.from({ length: 200 }, () => randomId('usr')));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^usr_[0-9A-Za-z]{20}$/);
    expect(randomId('x', 5)).toMatch(/^x_[0-9A-Za-z]{5}$/);
    // Every alphanumeric can appear: 4000 draws from 62 characters miss one with negligible odds.
    const seen = new Set([...ids].join('').replaceAll('usr_', ''));
    expect(seen.size).toBe(62);
  });

  it('secrets are 32 random bytes in base64url after the prefix; stored as SHA-256 hex', () => {
    expect(randomSecret()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomSecret('csk_')).toMatch(/^csk_[A-Za-z0-9_-]{43}$/);
    expect(randomSecret()).not.toBe(randomSecret());
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // UTF-8, not UTF-16 or Latin-1.
    expect(hashSecret('\u00e9')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });

  it('generated passwords are 24 alphanumerics', () => {
    for (let i = 0; i < 50; i++) expect(randomPassword()).toMatch(/^[0-9A-Za-z]{24}$/);
  });
});

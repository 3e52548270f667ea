/**
 * Random ids and secrets, and the one-way hash secrets are stored as. A secret has 256 bits of
 * entropy, so a plain SHA-256 is enough to store it (nothing to brute-force); passwords, chosen by
 * people, need scrypt (`passwords.ts`).
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `<prefix>_` and `length` random alphanumerics, e.g. `usr_8fK2…`. */
export function randomId(prefix: string, length = 20): string {
  let id = '';
  for (let i = 0; i < length; i++) id += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return `${prefix}_${id}`;
}

/** A 256-bit secret, base64url, after `prefix`. */
export function randomSecret(prefix = ''): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** The stored form of a secret: SHA-256, hex. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A password to hand out once: 24 alphanumerics (about 143 bits). */
export function randomPassword(): string {
  return randomId('x', 24).slice(2);
}

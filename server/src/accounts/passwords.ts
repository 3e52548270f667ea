/**
 * Password hashing with scrypt (node:crypto). Each hash records its parameters
 * (`scrypt$N$r$p$salt$hash`, base64url), so they can be raised later: old hashes still verify, and
 * `needsRehash` says when to replace one at the next sign-in.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';

export interface ScryptParams {
  /** CPU/memory cost, a power of two. */
  N: number;
  r: number;
  p: number;
}

/** 2^15 × 8 × 128 bytes = 32 MiB and roughly 50–100 ms per hash on a server core. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** Where a key is derived from an NFC password: here on libuv's pool (`deriveKey`), or on a `HashPool`'s own threads. */
export type Derive = (password: string, salt: Buffer, params: ScryptParams, length: number) => Promise<Buffer>;

/** maxmem must exceed 128·N·r; give it twice that. */
export const scryptMaxmem = ({ N, r }: ScryptParams): number => 256 * N * r;

/** scrypt on libuv's thread pool: fine for the CLI, but a server's database shares that pool (see `hash-pool.ts`). */
export const deriveKey: Derive = (password, salt, params, length) =>
  new Promise((resolve, reject) => {
    const { N, r, p } = params;
    scryptCallback(password, salt, length, { N, r, p, maxmem: scryptMaxmem(params) }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });

export async function hashPassword(
  password: string,
  params: ScryptParams = DEFAULT_SCRYPT,
  derive: Derive = deriveKey,
): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password.normalize('NFC'), salt, params, KEY_LENGTH);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parse(hash: string): { params: ScryptParams; salt: Buffer; key: Buffer } | undefined {
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || (N & (N - 1)) !== 0) return undefined;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length === 0 || key.length === 0) return undefined;
  return { params: { N, r, p }, salt, key };
}

/** Whether `password` matches `hash`, compared in constant time. A malformed hash matches nothing. */
export async function verifyPassword(password: string, hash: string, derive: Derive = deriveKey): Promise<boolean> {
  const parsed = parse(hash);
  if (!parsed) return false;
  const key = await derive(password.normalize('NFC'), parsed.salt, parsed.params, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

/** True when `hash` was made with weaker parameters than `params`. */
export function needsRehash(hash: string, params: ScryptParams = DEFAULT_SCRYPT): boolean {
  const parsed = parse(hash);
  return !parsed || parsed.params.N < params.N || parsed.params.r < params.r || parsed.params.p < params.p;
}

/** A hash no password matches, worked through for unknown usernames so they take as long as known ones. */
const decoys = new Map<string, Promise<string>>();
export function decoyHash(params: ScryptParams = DEFAULT_SCRYPT, derive: Derive = deriveKey): Promise<string> {
  const key = `${params.N}/${params.r}/${params.p}`;
  const known = decoys.get(key);
  if (known) return known;
  const decoy = hashPassword(randomBytes(16).toString('hex'), params, derive);
  // A refused attempt (a full `HashPool`) must not leave its failure as the decoy for good.
  decoy.catch(() => decoys.get(key) === decoy && decoys.delete(key));
  decoys.set(key, decoy);
  return decoy;
}

import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * API key format: `wds_<prefix>_<secret>` where the 12-character prefix is the public lookup handle
 * (shown in admin answers, used to revoke) and the secret is 256 random bits in base64url. Only the
 * SHA-256 of the whole key is stored. Operator-chosen keys (WDS_BOOTSTRAP_API_KEY) may have any
 * format; their lookup prefix is derived from the hash instead.
 */
const KEY_PATTERN = /^wds_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;
const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const PREFIX_LENGTH = 12;
/** Longest accepted bearer value; anything longer is not a key and is not worth hashing. */
export const MAX_API_KEY_LENGTH = 512;

export interface GeneratedApiKey {
  key: string;
  prefix: string;
  sha256: Buffer;
}

export function generateApiKey(): GeneratedApiKey {
  let prefix = '';
  for (let i = 0; i < PREFIX_LENGTH; i++) prefix += PREFIX_ALPHABET[randomInt(PREFIX_ALPHABET.length)];
  const key = `wds_${prefix}_${randomBytes(32).toString('base64url')}`;
  return { key, prefix, sha256: hashApiKey(key) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * The prefix a key is looked up by. Derived prefixes start with `x` and use the hex alphabet
 * after it, so they can never collide with a generated prefix of the same key space by accident;
 * collisions are harmless anyway because the full hash is compared.
 */
export function lookupPrefix(key: string): string {
  const m = KEY_PATTERN.exec(key);
  if (m) return m[1];
  return `x${hashApiKey(key)
    .toString('hex')
    .slice(0, PREFIX_LENGTH - 1)}`;
}

/** Accepts only plausible keys: printable ASCII without spaces, bounded length. */
export function isPlausibleApiKey(key: string): boolean {
  return key.length >= 8 && key.length <= MAX_API_KEY_LENGTH && /^[\x21-\x7e]+$/.test(key);
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `Authorization: Bearer <token>` → token, or undefined when absent or malformed. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m ? m[1] : undefined;
}

import {
  bearerToken,
  generateApiKey,
  hashApiKey,
  isPlausibleApiKey,
  lookupPrefix,
  sameHash,
} from './api-key';

describe('api keys', () => {
  it('generates keys in the documented format whose prefix is the lookup prefix', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).toMatch(/^wds_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(a.key).not.toBe(b.key);
    expect(lookupPrefix(a.key)).toBe(a.prefix);
    expect(sameHash(a.sha256, hashApiKey(a.key))).toBe(true);
    expect(sameHash(a.sha256, b.sha256)).toBe(false);
  });

  it('derives a stable prefix for operator-chosen keys', () => {
    expect(lookupPrefix('my-own-bootstrap-key')).toBe(lookupPrefix('my-own-bootstrap-key'));
    expect(lookupPrefix('my-own-bootstrap-key')).toMatch(/^x[0-9a-f]{11}$/);
    expect(lookupPrefix('my-own-bootstrap-key')).not.toBe(lookupPrefix('my-own-bootstrap-key2'));
  });

  it('parses bearer headers strictly', () => {
    expect(bearerToken('Bearer abc.def')).toBe('abc.def');
    expect(bearerToken('bearer   abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken(['Bearer a'])).toBeUndefined();
  });

  it('rejects implausible keys before any lookup', () => {
    expect(isPlausibleApiKey('short')).toBe(false);
    expect(isPlausibleApiKey('x'.repeat(600))).toBe(false);
    expect(isPlausibleApiKey('wds_abcdefghijkl_secret')).toBe(true);
  });
});

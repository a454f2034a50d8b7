import { z } from 'zod';
import { CommonEnv, ConfigError, envBool, envList, parseEnv } from './env';

describe('parseEnv', () => {
  it('applies the common defaults', () => {
    const cfg = parseEnv(CommonEnv, {});
    expect(cfg).toMatchObject({
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: 'postgres://wds:wds@127.0.0.1:5432/wds',
      LOG_LEVEL: 'info',
      HEALTH_PORT: 0,
      HEALTH_HOST: '0.0.0.0',
      WDS_PRIVATE_NETWORK_ALLOWLIST: [],
      WDS_MIGRATE_ON_START: true,
      SHUTDOWN_GRACE_MS: 15000,
    });
    expect(cfg.WDS_INSTANCE_ID).toMatch(new RegExp(`-${process.pid}$`));
  });

  it('lists every bad variable in one error', () => {
    const schema = CommonEnv.extend({ PORT: z.string().regex(/^\d+$/) });
    let caught: unknown;
    try {
      parseEnv(schema, {
        HEALTH_PORT: 'eighty',
        LOG_LEVEL: 'loud',
        WDS_MIGRATE_ON_START: 'maybe',
        DATABASE_URL: 'mysql://x',
      });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const err = caught as ConfigError;
    const names = err.issues.map((i) => i.split(':')[0]).sort();
    expect(names).toEqual(['DATABASE_URL', 'HEALTH_PORT', 'LOG_LEVEL', 'PORT', 'WDS_MIGRATE_ON_START']);
    for (const name of names) expect(err.message).toContain(name);
    expect(err.issues.find((i) => i.startsWith('PORT'))).toContain('(unset)');
  });

  it('treats empty strings as unset and ignores unrelated variables', () => {
    const cfg = parseEnv(CommonEnv, { HEALTH_PORT: '', UNRELATED: 'x' });
    expect(cfg.HEALTH_PORT).toBe(0);
    expect(cfg).not.toHaveProperty('UNRELATED');
  });

  it('rejects out-of-range ports', () => {
    expect(() => parseEnv(CommonEnv, { HEALTH_PORT: '70000' })).toThrow(/HEALTH_PORT/);
  });
});

describe('envBool / envList', () => {
  it('parses booleans strictly', () => {
    const b = envBool();
    expect(b.parse('TRUE')).toBe(true);
    expect(b.parse('1')).toBe(true);
    expect(b.parse('false')).toBe(false);
    expect(b.parse(' no ')).toBe(false);
    expect(b.safeParse('treu').success).toBe(false);
  });

  it('splits comma lists and drops blanks', () => {
    const l = envList();
    expect(l.parse('10.0.0.0/8, localhost:8080,,')).toEqual(['10.0.0.0/8', 'localhost:8080']);
    expect(l.parse('')).toEqual([]);
    expect(
      parseEnv(CommonEnv, { WDS_PRIVATE_NETWORK_ALLOWLIST: 'a,b' }).WDS_PRIVATE_NETWORK_ALLOWLIST,
    ).toEqual(['a', 'b']);
  });
});

import { AuthCache } from './auth-cache';
import type { AuthenticatedTeam } from '../teams/team';

const team = (teamId: string): AuthenticatedTeam => ({
  teamId,
  keyPrefix: 'p',
  enterprise: false,
  zeroDataRetentionEnabled: false,
  limits: { requestsPerMinute: 1, maxConcurrency: 1, maxBrowserSessions: 1 },
});

describe('AuthCache', () => {
  let now = 0;
  const hash = Buffer.alloc(32, 1);

  beforeEach(() => {
    now = 1000;
  });

  it('expires entries after the TTL', () => {
    const c = new AuthCache(100, () => now);
    c.setIfCurrent('a', team('t1'), hash, c.generation());
    expect(c.get('a')?.team.teamId).toBe('t1');
    now += 100;
    expect(c.get('a')).toBeUndefined();
  });

  it('drops a lookup that raced with an invalidation', () => {
    const c = new AuthCache(100, () => now);
    const gen = c.generation();
    c.invalidateKey('a');
    c.setIfCurrent('a', team('t1'), hash, gen);
    expect(c.get('a')).toBeUndefined();
  });

  it('invalidates by key and by team', () => {
    const c = new AuthCache(100, () => now);
    c.setIfCurrent('a', team('t1'), hash, c.generation());
    c.setIfCurrent('b', team('t1'), hash, c.generation());
    c.setIfCurrent('c', team('t2'), hash, c.generation());
    c.invalidateKey('c');
    expect(c.get('c')).toBeUndefined();
    c.invalidateTeam('t1');
    expect(c.get('a')).toBeUndefined();
    expect(c.get('b')).toBeUndefined();
  });

  it('evicts the oldest entry when full', () => {
    const c = new AuthCache(100, () => now, 2);
    c.setIfCurrent('a', team('t1'), hash, c.generation());
    c.setIfCurrent('b', team('t1'), hash, c.generation());
    c.setIfCurrent('c', team('t1'), hash, c.generation());
    expect(c.get('a')).toBeUndefined();
    expect(c.get('c')).toBeDefined();
  });
});

import { cachingResolver } from './dns-cache';

describe('cachingResolver', () => {
  it('answers a host from memory until the TTL, then asks again; failures are not kept', async () => {
    let now = 0;
    const calls: string[] = [];
    let fail = false;
    const resolver = cachingResolver(
      async (host) => {
        calls.push(host);
        if (fail) throw new Error('ENOTFOUND');
        return [{ address: '93.184.216.34', family: 4 }];
      },
      1000,
      10,
      () => now,
    );
    await resolver('a.example');
    await resolver('a.example');
    expect(calls).toEqual(['a.example']);
    now = 1000;
    await resolver('a.example');
    expect(calls).toEqual(['a.example', 'a.example']);
    fail = true;
    await expect(resolver('b.example')).rejects.toThrow('ENOTFOUND');
    fail = false;
    await expect(resolver('b.example')).resolves.toHaveLength(1);
    expect(calls.filter((h) => h === 'b.example')).toHaveLength(2);
  });

  it('keeps at most maxEntries hosts', async () => {
    const calls: string[] = [];
    const resolver = cachingResolver(
      async (host) => {
        calls.push(host);
        return [{ address: '93.184.216.34', family: 4 }];
      },
      60_000,
      2,
    );
    for (const h of ['a', 'b', 'c', 'a']) await resolver(h);
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });
});

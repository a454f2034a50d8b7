import { ServiceError } from '@wds/contracts';
import { NetworkPolicy, type Resolver } from './policy';

describe('NetworkPolicy.isAddressBlocked (default policy)', () => {
  const policy = new NetworkPolicy();

  it.each([
    ['10.1.2.3', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12 end'],
    ['192.168.1.1', 'private 192.168/16'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback /8'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['100.100.100.200', 'Alibaba metadata (CGNAT)'],
    ['100.64.0.1', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this-network 0/8'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast SSDP'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved 240/4'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'v6 loopback'],
    ['::', 'v6 unspecified'],
    ['fe80::1', 'v6 link-local'],
    ['fe80::1%eth0', 'v6 link-local with zone'],
    ['fc00::1', 'v6 ULA fc00::/7'],
    ['fd12:3456::1', 'v6 ULA fd'],
    ['fd00:ec2::254', 'AWS v6 metadata'],
    ['ff02::1', 'v6 multicast'],
    ['2001:db8::1', 'v6 documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of metadata'],
    ['64:ff9b:1::1', 'local-use NAT64 prefix'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['::7f00:1', 'IPv4-compatible loopback'],
    ['[::1]', 'bracketed v6 loopback'],
    ['not-an-ip', 'unparseable'],
    ['', 'empty'],
  ])('blocks %s (%s)', (ip) => {
    expect(policy.isAddressBlocked(ip)).toBe(true);
  });

  it.each([
    ['93.184.216.34'],
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['172.32.0.1'],
    ['100.128.0.1'],
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:80b::200e'],
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
    ['2002:808:808::1'],
  ])('allows public %s', (ip) => {
    expect(policy.isAddressBlocked(ip)).toBe(false);
  });
});

describe('NetworkPolicy allow-list', () => {
  it('allows a CIDR (v4 and v6), including the mapped form of a v4 address', () => {
    const p = new NetworkPolicy({ allowlist: ['10.0.0.0/8', 'fd00::/8'] });
    expect(p.isAddressBlocked('10.9.9.9')).toBe(false);
    expect(p.isAddressBlocked('::ffff:10.9.9.9')).toBe(false);
    expect(p.isAddressBlocked('fd00::5')).toBe(false);
    expect(p.isAddressBlocked('192.168.0.1')).toBe(true);
    expect(p.isAddressBlocked('fc00::5')).toBe(true);
  });

  it('allows a host name whatever it resolves to, on any port', () => {
    const p = new NetworkPolicy({ allowlist: ['Internal.Svc'] });
    expect(p.isAddressBlocked('10.0.0.7', 8080, 'internal.svc')).toBe(false);
    expect(p.isAddressBlocked('10.0.0.7', 443, 'internal.svc.')).toBe(false);
    expect(p.isAddressBlocked('10.0.0.7', 443, 'other.svc')).toBe(true);
    expect(p.isAddressBlocked('10.0.0.7')).toBe(true);
  });

  it('allows host:port and ip:port only on that port', () => {
    const p = new NetworkPolicy({ allowlist: ['db.local:5432', '127.0.0.1:8080', '[::1]:9000'] });
    expect(p.isAddressBlocked('10.0.0.1', 5432, 'db.local')).toBe(false);
    expect(p.isAddressBlocked('10.0.0.1', 5433, 'db.local')).toBe(true);
    expect(p.isAddressBlocked('127.0.0.1', 8080)).toBe(false);
    expect(p.isAddressBlocked('::ffff:127.0.0.1', 8080)).toBe(false);
    expect(p.isAddressBlocked('127.0.0.1', 8081)).toBe(true);
    expect(p.isAddressBlocked('127.0.0.1')).toBe(true);
    expect(p.isAddressBlocked('::1', 9000)).toBe(false);
    expect(p.isAddressBlocked('::1', 9001)).toBe(true);
  });

  it('allows a bare IP on any port', () => {
    const p = NetworkPolicy.fromEnvList([' 169.254.169.254 ', '', '::1']);
    expect(p.isAddressBlocked('169.254.169.254', 80)).toBe(false);
    expect(p.isAddressBlocked('::1', 1)).toBe(false);
    expect(p.isAddressBlocked('169.254.169.253', 80)).toBe(true);
  });

  it('answers repeated questions as the first time, also after its memo of answers started over', () => {
    const p = new NetworkPolicy({ allowlist: ['10.1.0.0/16', 'svc.local:8080'] });
    for (let round = 0; round < 2; round++) {
      // More distinct questions than the memo holds, so it starts over during the first round.
      for (let i = 0; i < 5000; i++) {
        const ip = `10.${i % 2}.${(i >> 8) & 255}.${i & 255}`;
        expect(p.isAddressBlocked(ip, 80)).toBe(i % 2 === 0);
      }
      expect(p.isAddressBlocked('10.0.0.1', 8080, 'svc.local')).toBe(false);
      expect(p.isAddressBlocked('10.0.0.1', 8081, 'svc.local')).toBe(true);
      expect(p.isAddressBlocked('10.0.0.1', 8080)).toBe(true);
      expect(p.isAddressBlocked('10.0.0.1', 8080, 'other.local')).toBe(true);
      expect(p.isAddressBlocked('not an ip', 8080, 'svc.local')).toBe(true);
    }
  });

  it.each([['10.0.0.0/33'], ['host:99999'], ['bad host!'], ['1.2.3.4/x'], ['host:']])(
    'rejects the malformed entry %s',
    (entry) => {
      expect(() => new NetworkPolicy({ allowlist: [entry] })).toThrow(/allow-list entry/);
    },
  );
});

describe('NetworkPolicy.checkUrl', () => {
  const resolver: Resolver = async (host) => {
    const table: Record<string, { address: string; family: 4 | 6 }[]> = {
      'public.example': [{ address: '93.184.216.34', family: 4 }],
      'mixed.example': [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ],
      'v6loop.example': [{ address: '::1', family: 6 }],
    };
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };
  const policy = new NetworkPolicy({ resolve: resolver });

  async function rejection(url: string): Promise<ServiceError> {
    const err = await policy.checkUrl(url).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServiceError);
    return err as ServiceError;
  }

  it('returns the vetted addresses and the effective port', async () => {
    const t = await policy.checkUrl('https://PUBLIC.example/path');
    expect(t).toMatchObject({ host: 'public.example', port: 443, addresses: [{ address: '93.184.216.34' }] });
    expect((await policy.checkUrl(new URL('http://public.example:8080/'))).port).toBe(8080);
  });

  it('refuses when any resolved address is blocked and names the host, not the address', async () => {
    const err = await rejection('http://mixed.example/');
    expect(err.code).toBe('DESTINATION_BLOCKED');
    expect(err.message).toContain('mixed.example');
    expect(err.message).not.toContain('10.0.0.5');
    expect((await rejection('http://v6loop.example/')).code).toBe('DESTINATION_BLOCKED');
  });

  it.each([
    ['http://0x7f.1/'],
    ['http://2130706433/'],
    ['http://[::ffff:127.0.0.1]/'],
    ['http://169.254.169.254/'],
  ])('refuses the literal address URL %s', async (url) => {
    expect((await rejection(url)).code).toBe('DESTINATION_BLOCKED');
  });

  it('rejects other schemes and invalid URLs as BAD_REQUEST', async () => {
    expect((await rejection('file:///etc/passwd')).code).toBe('BAD_REQUEST');
    expect((await rejection('ftp://public.example/')).code).toBe('BAD_REQUEST');
    expect((await rejection('not a url')).code).toBe('BAD_REQUEST');
  });

  it('reports resolution failures as UPSTREAM_FAILED/dns', async () => {
    const err = await rejection('http://nowhere.example/');
    expect(err.code).toBe('UPSTREAM_FAILED');
    expect(err.message).toBe('could not resolve host nowhere.example');
    expect(err.details).toMatchObject({ reason: 'dns', code: 'ENOTFOUND' });
  });

  it('lookup applies the policy and honours family and all', async () => {
    const call = (host: string, options: { all?: boolean; family?: number }) =>
      new Promise<{ err: unknown; address: unknown; family?: number }>((resolve) => {
        policy.lookup(host, options, (err, address, family) => resolve({ err, address, family }));
      });
    expect(await call('public.example', {})).toMatchObject({
      err: null,
      address: '93.184.216.34',
      family: 4,
    });
    expect(await call('public.example', { all: true })).toMatchObject({
      err: null,
      address: [{ address: '93.184.216.34', family: 4 }],
    });
    expect((await call('public.example', { family: 6 })).err).toMatchObject({ code: 'UPSTREAM_FAILED' });
    expect((await call('mixed.example', { all: true })).err).toMatchObject({ code: 'DESTINATION_BLOCKED' });
  });
});

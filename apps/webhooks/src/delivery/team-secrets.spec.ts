import { SecretSource, TeamSecrets } from './team-secrets';

class CountingSource extends SecretSource {
  calls = 0;
  constructor(private readonly secrets: Record<string, string>) {
    super();
  }
  async fetch(teamId: string): Promise<string | null> {
    this.calls++;
    await new Promise((r) => setTimeout(r, 5));
    return this.secrets[teamId] ?? null;
  }
}

describe('TeamSecrets', () => {
  it('asks once per team within the TTL, also for concurrent misses, and again after it', async () => {
    let now = 1000;
    const source = new CountingSource({ a: 'sa' });
    const secrets = new TeamSecrets(source, 60_000, () => now);
    const [x, y] = await Promise.all([secrets.get('a'), secrets.get('a')]);
    expect([x, y]).toEqual(['sa', 'sa']);
    expect(await secrets.get('b')).toBeNull();
    expect(await secrets.get('b')).toBeNull();
    expect(source.calls).toBe(2);
    now += 60_001;
    await secrets.get('a');
    expect(source.calls).toBe(3);
  });

  it('does not cache a failure', async () => {
    let fail = true;
    const source = new (class extends SecretSource {
      async fetch(): Promise<string | null> {
        if (fail) throw new Error('gateway down');
        return 's';
      }
    })();
    const secrets = new TeamSecrets(source, 60_000);
    await expect(secrets.get('a')).rejects.toThrow('gateway down');
    fail = false;
    expect(await secrets.get('a')).toBe('s');
  });
});

import { createLogger } from '@wds/observability';
import type { AttemptDeliveryUseCase } from './attempt-delivery.usecase';
import { DeliveryLoop } from './delivery-loop';
import type { ClaimedDelivery, ClaimOptions, DeliveryStore } from './delivery-store';

/**
 * A store whose leases have all expired (the database counts none of them): it offers every due
 * delivery again, except for the destinations the loop excludes. Attempts to the stuck receiver
 * never end, as when undici queued them forever.
 */
class ExpiredLeaseStore {
  private n = 0;
  claims: ClaimOptions[] = [];

  async claim(opts: ClaimOptions): Promise<ClaimedDelivery[]> {
    // A claim is a database round trip.
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.claims.push(opts);
    const out: ClaimedDelivery[] = [];
    for (const destination of ['http://stuck:80', 'http://healthy:80']) {
      if (opts.excludeDestinations?.includes(destination)) continue;
      for (let i = 0; i < opts.perDestination && out.length < opts.limit; i++)
        out.push(this.delivery(destination));
    }
    return out;
  }

  private delivery(destination: string): ClaimedDelivery {
    this.n++;
    return {
      webhookId: `w${this.n}`,
      teamId: 't',
      jobId: 'j',
      type: 'crawl.page',
      url: `${destination}/hook`,
      destination,
      headers: {},
      body: Buffer.from('{}'),
      attempts: 0,
      attemptsThisRound: 0,
    };
  }
}

describe('DeliveryLoop', () => {
  it('never gives one destination more than its share of the slots, and reports attempts past their lease', async () => {
    jest.useFakeTimers({ now: 0 });
    const store = new ExpiredLeaseStore();
    const running: Record<string, number> = {};
    const attempt = {
      execute: (d: ClaimedDelivery) => {
        running[d.destination] = (running[d.destination] ?? 0) + 1;
        // The stuck receiver's attempts never end; the healthy one's end at once.
        return new Promise<void>((resolve) => {
          if (d.destination === 'http://healthy:80') setTimeout(resolve, 10);
        });
      },
    } as unknown as AttemptDeliveryUseCase;
    const loop = new DeliveryLoop(
      store as unknown as DeliveryStore,
      attempt,
      { concurrency: 32, perDestination: 4, pollIntervalMs: 10, leaseMs: 1000, instance: 'i' },
      createLogger({ service: 'test', level: 'silent' }),
    );
    loop.start();
    for (let i = 0; i < 50; i++) await jest.advanceTimersByTimeAsync(25);

    // The healthy destination keeps being served; the stuck one holds 4 slots, not 32.
    expect(running['http://healthy:80']).toBeGreaterThan(20);
    expect(running['http://stuck:80']).toBe(4);
    expect(store.claims.at(-1)?.excludeDestinations).toEqual(['http://stuck:80']);
    expect(loop.overdue()).toBe(4);
    const stop = loop.stop();
    jest.useRealTimers();
    void stop;
  });
});

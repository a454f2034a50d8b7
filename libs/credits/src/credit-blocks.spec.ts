import { ErrorCode, RPC, ServiceError, type CreditUsage } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { CreditBlocks } from './credit-blocks';

/** Billing's block rules in memory: grants up to the balance, usage once per key, refund on close. */
class FakeBilling {
  balance = 0;
  readonly blocks = new Map<string, { granted: number; used: number; open: boolean }>();
  readonly keys = new Set<string>();
  readonly calls: { subject: string; payload: any }[] = [];
  failReports = 0;
  private next = 0;

  readonly rpc = {
    request: async (def: { subject: string }, payload: any): Promise<any> => {
      this.calls.push({ subject: def.subject, payload });
      if (def.subject === RPC.creditsBlockTake.subject) return this.take(payload);
      if (def.subject === RPC.creditsUsageReport.subject) return this.report(payload);
      throw new Error(`unexpected ${def.subject}`);
    },
  } as unknown as Pick<Messaging, 'request'>;

  takes(): number {
    return this.calls.filter((c) => c.subject === RPC.creditsBlockTake.subject).length;
  }

  reports(): { reservationId: string; usage: CreditUsage[]; close: boolean }[] {
    return this.calls.filter((c) => c.subject === RPC.creditsUsageReport.subject).map((c) => c.payload);
  }

  private take(p: { amount: number; minimum: number }) {
    if (this.balance < p.minimum) {
      throw new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits to perform this request');
    }
    const granted = Math.min(p.amount, this.balance);
    this.balance -= granted;
    const id = `block-${++this.next}`;
    this.blocks.set(id, { granted, used: 0, open: true });
    return { reservationId: id, granted, balance: this.balance, expiresAt: Date.now() + 120_000 };
  }

  private report(p: { reservationId: string; usage: CreditUsage[]; close: boolean }) {
    if (this.failReports > 0) {
      this.failReports--;
      throw new ServiceError(ErrorCode.SERVICE_UNAVAILABLE, 'billing is down');
    }
    const block = this.blocks.get(p.reservationId)!;
    let recorded = 0;
    for (const u of p.usage) {
      if (this.keys.has(u.key)) continue;
      this.keys.add(u.key);
      recorded += u.amount;
    }
    block.used += recorded;
    // Usage against a block already settled (expired) is charged from the balance.
    if (!block.open) this.balance -= recorded;
    if (p.close && block.open) {
      block.open = false;
      this.balance += block.granted - block.used;
    }
    return { recorded, used: block.used, open: block.open, expiresAt: Date.now() + 120_000 };
  }
}

const logger = { warn: jest.fn(), error: jest.fn(), info: jest.fn() } as unknown as Logger;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

describe('CreditBlocks', () => {
  let billing: FakeBilling;
  let blocks: CreditBlocks;

  beforeEach(() => {
    billing = new FakeBilling();
    billing.balance = 100_000;
  });
  afterEach(async () => {
    await blocks?.stop();
  });

  const make = (opts: Partial<ConstructorParameters<typeof CreditBlocks>[2]> = {}) =>
    (blocks = new CreditBlocks(billing.rpc, logger, { holder: 'test', flushIntervalMs: 5, ...opts }));

  it('serves many requests from one block and reports their usage in batches', async () => {
    make({ firstBlock: 50 });
    const holds = await Promise.all(Array.from({ length: 30 }, () => blocks.hold('t1', 1)));
    expect(billing.takes()).toBe(1);
    holds.forEach((h, i) => blocks.settle(h, 1, { key: `req:${i}`, endpoint: 'scrape' }));
    await until(() => billing.keys.size === 30);
    expect(billing.reports().length).toBeLessThanOrEqual(2);
  });

  it('takes a larger block when the team uses one up quickly, up to maxBlock', async () => {
    make({ firstBlock: 10, maxBlock: 40 });
    for (let i = 0; i < 100; i++) {
      const h = await blocks.hold('t1', 1);
      blocks.settle(h, 1, { key: `k${i}`, endpoint: 'scrape' });
    }
    const sizes = billing.calls
      .filter((c) => c.subject === RPC.creditsBlockTake.subject)
      .map((c) => c.payload.amount);
    expect(sizes.slice(0, 3)).toEqual([10, 20, 40]);
    expect(Math.max(...sizes)).toBe(40);
  });

  it('closes a superseded block once its last hold is done, refunding what was not used', async () => {
    make({ firstBlock: 5 });
    const first = await blocks.hold('t1', 5);
    const second = await blocks.hold('t1', 1); // the first block is used up: a new one is taken
    expect(billing.takes()).toBe(2);
    blocks.settle(first, 2, { key: 'a', endpoint: 'scrape' });
    await until(() => billing.blocks.get('block-1')?.open === false);
    expect(billing.blocks.get('block-1')).toMatchObject({ granted: 5, used: 2 });
    blocks.release(second);
    await blocks.stop();
    expect(billing.balance).toBe(100_000 - 2);
  });

  it('charges more than the hold when the work cost more (e.g. PDF pages)', async () => {
    make({ firstBlock: 10 });
    const h = await blocks.hold('t1', 1);
    blocks.settle(h, 7, { key: 'pdf', endpoint: 'scrape' });
    await blocks.stop();
    expect(billing.balance).toBe(100_000 - 7);
  });

  it('answers INSUFFICIENT_CREDITS when billing cannot grant the minimum, and serves exact grants', async () => {
    billing.balance = 3;
    make({ firstBlock: 20 });
    const a = await blocks.hold('t1', 2);
    await expect(blocks.hold('t1', 2)).rejects.toMatchObject({ code: ErrorCode.INSUFFICIENT_CREDITS });
    blocks.settle(a, 2, { key: 'a', endpoint: 'scrape' });
    await blocks.stop();
    expect(billing.balance).toBe(1);
  });

  it('returns idle blocks to billing', async () => {
    make({ firstBlock: 20, idleCloseMs: 30 });
    const h = await blocks.hold('t1', 1);
    blocks.settle(h, 1, { key: 'x', endpoint: 'scrape' });
    await until(() => billing.blocks.get('block-1')?.open === false);
    expect(blocks.heldBlocks()).toEqual([]);
    expect(billing.balance).toBe(100_000 - 1);
  });

  it('keeps usage across failed reports and delivers it later, once', async () => {
    make({ firstBlock: 20, idleCloseMs: 100_000 });
    billing.failReports = 2;
    const h = await blocks.hold('t1', 1);
    blocks.settle(h, 1, { key: 'kept', endpoint: 'scrape' });
    await until(() => billing.keys.has('kept'), 5_000);
    expect(billing.blocks.get('block-1')!.used).toBe(1);
  });

  it('charges a retried request once (same key)', async () => {
    make({ firstBlock: 20 });
    for (let i = 0; i < 2; i++) {
      const h = await blocks.hold('t1', 1);
      blocks.settle(h, 1, { key: 'idem:order-1', endpoint: 'scrape' });
    }
    await blocks.stop();
    expect(billing.balance).toBe(100_000 - 1);
  });

  it('keeps teams apart', async () => {
    make({ firstBlock: 10 });
    await blocks.hold('t1', 1);
    await blocks.hold('t2', 1);
    expect(billing.calls.map((c) => c.payload.teamId)).toEqual(['t1', 't2']);
    expect(
      blocks
        .heldBlocks()
        .map((b) => b.teamId)
        .sort(),
    ).toEqual(['t1', 't2']);
  });

  it('settleRecorded resolves once billing has the usage, and rejects when billing stays away', async () => {
    make({ firstBlock: 20, idleCloseMs: 100_000 });
    const h = await blocks.hold('t1', 1);
    await blocks.settleRecorded(h, 1, { key: 'page-1', endpoint: 'crawl' });
    expect(billing.keys.has('page-1')).toBe(true);

    billing.failReports = 1_000;
    const h2 = await blocks.hold('t1', 1);
    await expect(
      blocks.settleRecorded(h2, 1, { key: 'page-2', endpoint: 'crawl' }, 50),
    ).rejects.toMatchObject({
      code: ErrorCode.SERVICE_UNAVAILABLE,
    });
    // Still queued: delivered once billing is back.
    billing.failReports = 0;
    await until(() => billing.keys.has('page-2'), 5_000);
  });

  it('settleRecorded batches concurrent pages into few reports', async () => {
    make({ firstBlock: 100, idleCloseMs: 100_000 });
    const holds = await Promise.all(Array.from({ length: 40 }, () => blocks.hold('t1', 1)));
    await Promise.all(holds.map((h, i) => blocks.settleRecorded(h, 1, { key: `p${i}`, endpoint: 'crawl' })));
    expect(billing.keys.size).toBe(40);
    expect(billing.reports().length).toBeLessThanOrEqual(3);
  });

  it('settleRecorded reports within recordedFlushMs, also usage that waited for a report in flight', async () => {
    // The regular flush is far away: only the recorded-usage deadline can deliver these in time.
    make({ firstBlock: 100, idleCloseMs: 100_000, flushIntervalMs: 60_000, recordedFlushMs: 5 });
    const [a, b] = await Promise.all([blocks.hold('t1', 1), blocks.hold('t1', 1)]);
    const started = Date.now();
    const first = blocks.settleRecorded(a, 1, { key: 'a', endpoint: 'crawl' });
    await until(() => billing.reports().length === 1);
    // Queued while the first report may still be in flight.
    await Promise.all([first, blocks.settleRecorded(b, 1, { key: 'b', endpoint: 'crawl' })]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(billing.keys).toEqual(new Set(['a', 'b']));
  });

  it('still reports the usage of running holds after billing settled their expired block', async () => {
    make({ firstBlock: 10, idleCloseMs: 100_000, renewEveryMs: 100_000 });
    const h = await blocks.hold('t1', 1);
    const early = await blocks.hold('t1', 1);
    // The sweeper settles the block (its renewals were lost): 10 held, nothing used yet, all back.
    billing.blocks.get('block-1')!.open = false;
    billing.balance += 10;
    // The first report after that learns the block is settled; another hold is still running.
    blocks.settle(early, 1, { key: 'early', endpoint: 'scrape' });
    await until(() => billing.keys.has('early'));
    blocks.settle(h, 1, { key: 'late', endpoint: 'scrape' });
    await until(() => billing.keys.has('late'));
    await until(() => blocks.heldBlocks().length === 0);
    expect(billing.balance).toBe(100_000 - 2);
  });
});

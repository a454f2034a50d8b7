import { ErrorCode, RPC, ServiceError } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import type { FastifyRequest } from 'fastify';
import { setRequestId, usageIdentityOf } from '../http/request-context';
import { CreditBlocks } from '@wds/credits';
import { CreditsService, type UsageIdentity } from './credits.service';
import { PendingCreditGrants } from './pending-grants';

/** The usage identity a controller reads (`@Usage()`) from a request with these headers. */
function request(headers: Record<string, string> = {}): UsageIdentity {
  const req = { headers, raw: {} } as unknown as FastifyRequest;
  setRequestId(req, 'req-1');
  return usageIdentityOf(req);
}

describe('CreditsService', () => {
  let sent: { subject: string; payload: any }[];
  let takeReply: unknown;
  let service: CreditsService;
  let blocks: CreditBlocks;
  let pending: PendingCreditGrants;
  let balanceReply: number;

  beforeEach(() => {
    sent = [];
    takeReply = { reservationId: 'block-1', granted: 20, balance: 80, expiresAt: Date.now() + 60_000 };
    balanceReply = 0;
    const messaging = {
      request: async (def: { subject: string }, payload: unknown) => {
        sent.push({ subject: def.subject, payload });
        if (def.subject === RPC.creditsBalance.subject) return { balance: balanceReply };
        if (def.subject === RPC.creditsBlockTake.subject) {
          if (takeReply instanceof Error) throw takeReply;
          return takeReply;
        }
        return { recorded: 0, used: 0, open: false, expiresAt: 0 };
      },
    } as unknown as Messaging;
    const logger = { warn: jest.fn(), error: jest.fn() } as unknown as Logger;
    blocks = new CreditBlocks(messaging, logger, { holder: 'test', flushIntervalMs: 1 });
    pending = new PendingCreditGrants();
    service = new CreditsService(messaging, blocks, pending);
  });
  afterEach(() => blocks.stop());

  it('holds the estimate from a block, runs, and reports the actual cost under the request key', async () => {
    const result = await service.charge(
      { usage: request(), teamId: 't1', endpoint: 'scrape', estimate: 10 },
      async (reservation) => ({ result: `ran with ${reservation.key}`, credits: 5 }),
    );
    expect(result).toBe('ran with req:req-1');
    await blocks.stop();
    expect(sent).toEqual([
      {
        subject: RPC.creditsBlockTake.subject,
        payload: { teamId: 't1', amount: 20, minimum: 10, holder: 'test' },
      },
      {
        subject: RPC.creditsUsageReport.subject,
        payload: {
          reservationId: 'block-1',
          usage: [{ key: 'req:req-1', amount: 5, endpoint: 'scrape' }],
          close: true,
        },
      },
    ]);
  });

  it('charges nothing and rethrows when the work fails', async () => {
    const failure = new ServiceError(ErrorCode.UPSTREAM_FAILED, 'target down');
    await expect(
      service.charge({ usage: request(), teamId: 't1', endpoint: 'scrape', estimate: 1 }, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    await blocks.stop();
    const reports = sent.filter((s) => s.subject === RPC.creditsUsageReport.subject);
    expect(reports.flatMap((r) => r.payload.usage)).toEqual([]);
  });

  it('does not run the work when credits are short', async () => {
    takeReply = new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'short');
    const run = jest.fn();
    await expect(
      service.charge({ usage: request(), teamId: 't1', endpoint: 'scrape', estimate: 1 }, run),
    ).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      status: 402,
    });
    expect(run).not.toHaveBeenCalled();
  });

  describe('a team whose creation credits are still on their way (bootstrap team while billing starts)', () => {
    const granted = { reservationId: 'block-2', granted: 20, balance: 230, expiresAt: Date.now() + 60_000 };
    /** A grant that billing confirms when nudged (the initializer tries it at once). */
    function pendingGrant() {
      let confirm!: () => void;
      const done = new Promise<void>((r) => (confirm = r));
      const nudge = jest.fn(() => {
        takeReply = granted;
        balanceReply = 250;
        confirm();
      });
      pending.track('t1', { done, nudge });
      return nudge;
    }

    it('a request that finds no credits nudges the grant, waits for it and runs', async () => {
      takeReply = new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'short');
      const nudge = pendingGrant();
      const result = await service.charge(
        { usage: request(), teamId: 't1', endpoint: 'scrape', estimate: 5 },
        async () => ({ result: 'ran', credits: 1 }),
      );
      expect(result).toBe('ran');
      expect(nudge).toHaveBeenCalledTimes(1);
    });

    it('a job start waits for the grant before checking the balance again', async () => {
      const nudge = pendingGrant();
      await expect(service.requireCreditsToStart('t1', 'a crawl', 5)).resolves.toBeUndefined();
      expect(nudge).toHaveBeenCalledTimes(1);
    });

    it('still answers 402 when the grant does not come within the wait, and for other teams at once', async () => {
      takeReply = new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'short');
      const nudge = jest.fn();
      pending.track('t1', { done: new Promise<void>(() => undefined), nudge });
      pending.waitMs = 50;
      const started = Date.now();
      await expect(
        service.charge({ usage: request(), teamId: 't1', endpoint: 'scrape', estimate: 1 }, jest.fn()),
      ).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(45);
      expect(nudge).toHaveBeenCalledTimes(1);
      await expect(
        service.charge({ usage: request(), teamId: 't2', endpoint: 'scrape', estimate: 1 }, jest.fn()),
      ).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS' });
      expect(nudge).toHaveBeenCalledTimes(1);
    });

    it('forgets the grant once it is confirmed', async () => {
      const nudge = pendingGrant();
      nudge();
      await new Promise((r) => setImmediate(r));
      expect(await pending.settle('t1')).toBe(false);
    });
  });

  it('keys usage by the Idempotency-Key header when present', () => {
    expect(service.requestKey(request({ 'idempotency-key': 'order-42' }))).toBe('idem:order-42');
    expect(service.requestKey(request())).toBe('req:req-1');
    expect(() => service.requestKey(request({ 'idempotency-key': 'bad key!' }))).toThrow(/Idempotency-Key/);
  });
});

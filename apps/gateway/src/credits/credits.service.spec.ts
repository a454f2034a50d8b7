import { ErrorCode, RPC, ServiceError } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import type { FastifyRequest } from 'fastify';
import { setRequestId } from '../http/request-context';
import { CreditsService } from './credits.service';

function request(headers: Record<string, string> = {}): FastifyRequest {
  const req = { headers, raw: {} } as unknown as FastifyRequest;
  setRequestId(req, 'req-1');
  return req;
}

describe('CreditsService', () => {
  let sent: { subject: string; payload: any }[];
  let replies: Record<string, unknown>;
  let service: CreditsService;

  beforeEach(() => {
    sent = [];
    replies = {
      [RPC.creditsReserve.subject]: { reservationId: 'res-1', balance: 90 },
      [RPC.creditsSettle.subject]: { balance: 95, charged: 5 },
      [RPC.creditsRelease.subject]: { balance: 100 },
    };
    const messaging = {
      request: async (def: { subject: string }, payload: unknown) => {
        sent.push({ subject: def.subject, payload });
        const reply = replies[def.subject];
        if (reply instanceof Error) throw reply;
        return reply;
      },
    } as unknown as Messaging;
    const logger = { warn: jest.fn(), error: jest.fn() } as unknown as Logger;
    service = new CreditsService(messaging, logger);
  });

  it('reserves the estimate, runs, and settles the actual cost', async () => {
    const result = await service.charge(
      { req: request(), teamId: 't1', endpoint: 'scrape', estimate: 10 },
      async (reservation) => ({ result: `ran with ${reservation.reservationId}`, credits: 5 }),
    );
    expect(result).toBe('ran with res-1');
    expect(sent).toEqual([
      {
        subject: RPC.creditsReserve.subject,
        payload: { teamId: 't1', requestId: 'req:req-1', amount: 10, endpoint: 'scrape' },
      },
      { subject: RPC.creditsSettle.subject, payload: { reservationId: 'res-1', actual: 5 } },
    ]);
  });

  it('releases the hold and rethrows when the work fails', async () => {
    const failure = new ServiceError(ErrorCode.UPSTREAM_FAILED, 'target down');
    await expect(
      service.charge({ req: request(), teamId: 't1', endpoint: 'scrape', estimate: 1 }, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(sent.map((s) => s.subject)).toEqual([RPC.creditsReserve.subject, RPC.creditsRelease.subject]);
  });

  it('does not run the work when credits are short', async () => {
    replies[RPC.creditsReserve.subject] = new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'short');
    const run = jest.fn();
    await expect(
      service.charge({ req: request(), teamId: 't1', endpoint: 'scrape', estimate: 1 }, run),
    ).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      status: 402,
    });
    expect(run).not.toHaveBeenCalled();
  });

  it('keys the hold by the Idempotency-Key header when present', () => {
    expect(service.requestKey(request({ 'idempotency-key': 'order-42' }))).toBe('idem:order-42');
    expect(service.requestKey(request())).toBe('req:req-1');
    expect(() => service.requestKey(request({ 'idempotency-key': 'bad key!' }))).toThrow(/Idempotency-Key/);
  });
});

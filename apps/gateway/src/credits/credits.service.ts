import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, RPC, ServiceError, type ActivityEndpoint } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import type { FastifyRequest } from 'fastify';
import { requestIdOf } from '../http/request-context';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,200}$/;

export interface CreditReservation {
  reservationId: string;
  /** Balance after the hold. */
  balance: number;
}

export interface ChargeOptions {
  req: FastifyRequest;
  teamId: string;
  endpoint: ActivityEndpoint;
  /** Credits held before the work starts; the work fails with 402 when the balance is short. */
  estimate: number;
}

/** What billable work reports back: its result and what it actually cost. */
export interface Charged<T> {
  result: T;
  credits: number;
}

/**
 * Credits of a request, held and charged by the billing service over NATS.
 *
 *   return this.credits.charge({ req, teamId: team.teamId, endpoint: 'scrape', estimate: 1 }, async () => {
 *     const doc = await scrape();
 *     return { result: { success: true, data: doc }, credits: costOf(doc) };
 *   });
 *
 * The hold is keyed by the client's `Idempotency-Key` header (else the request id), so a retried
 * request does not pay twice. Failure of `run` releases the hold and rethrows.
 */
@Injectable()
export class CreditsService {
  constructor(
    private readonly messaging: Messaging,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** `idem:<Idempotency-Key>` or `req:<request id>`; a malformed Idempotency-Key is a 400. */
  requestKey(req: FastifyRequest): string {
    const header = req.headers['idempotency-key'];
    if (header !== undefined) {
      const value = Array.isArray(header) ? header[0] : header;
      if (!IDEMPOTENCY_KEY.test(value)) {
        throw new ServiceError(
          ErrorCode.BAD_REQUEST,
          'Idempotency-Key header: 1 to 200 characters of letters, digits, ".", "_", ":" or "-"',
        );
      }
      return `idem:${value}`;
    }
    const requestId = requestIdOf(req);
    if (!requestId) throw new ServiceError(ErrorCode.INTERNAL, 'request has no id');
    return `req:${requestId}`;
  }

  async reserve(opts: ChargeOptions): Promise<CreditReservation> {
    return this.messaging.request(RPC.creditsReserve, {
      teamId: opts.teamId,
      requestId: this.requestKey(opts.req),
      amount: opts.estimate,
      endpoint: opts.endpoint,
    });
  }

  /** Charges the actual cost (refunding or debiting the difference); returns what was charged. */
  async settle(reservationId: string, actual: number): Promise<{ balance: number; charged: number }> {
    return this.messaging.request(RPC.creditsSettle, { reservationId, actual });
  }

  async release(reservationId: string): Promise<{ balance: number }> {
    return this.messaging.request(RPC.creditsRelease, { reservationId });
  }

  async balance(teamId: string): Promise<number> {
    return (await this.messaging.request(RPC.creditsBalance, { teamId })).balance;
  }

  async grant(teamId: string, amount: number, reason: string, idempotencyKey: string): Promise<number> {
    return (await this.messaging.request(RPC.creditsGrant, { teamId, amount, reason, idempotencyKey }))
      .balance;
  }

  /** Reserve `estimate` → run → settle the reported cost; release when `run` throws. */
  async charge<T>(
    opts: ChargeOptions,
    run: (reservation: CreditReservation) => Promise<Charged<T>>,
  ): Promise<T> {
    const reservation = await this.reserve(opts);
    let outcome: Charged<T>;
    try {
      outcome = await run(reservation);
    } catch (err) {
      await this.release(reservation.reservationId).catch((releaseErr: unknown) =>
        // The billing sweeper releases expired holds, so a lost release only delays the refund.
        this.logger.warn(
          { err: releaseErr, reservationId: reservation.reservationId },
          'could not release credits',
        ),
      );
      throw err;
    }
    await this.settle(reservation.reservationId, outcome.credits).catch((err: unknown) =>
      // The work is done and its answer is owed to the client; the hold stays until billing is back.
      this.logger.error(
        { err, reservationId: reservation.reservationId, credits: outcome.credits },
        'could not settle credits',
      ),
    );
    return outcome.result;
  }
}

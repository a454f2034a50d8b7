import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ErrorCode, RPC, ServiceError, type ActivityEndpoint } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { CreditBlocks, type CreditHold } from '@wds/credits';
import { PendingCreditGrants } from './pending-grants';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * Credits held for one request from a credit block this gateway holds for the team (`@wds/credits`,
 * ADR 0005): no billing round trip. (Billing's reservations — `RPC.creditsReserve` — are for
 * long-running work only: browser sessions.)
 */
export interface RequestCreditHold {
  hold: CreditHold;
  /** The usage key: a retried request with the same key is charged once. */
  key: string;
  endpoint: ActivityEndpoint;
  /** Lookup prefix of the API key used: the usage counts for that key. */
  apiKey?: string;
}

/**
 * What names a billable request's usage, as the controller read it from the HTTP request
 * (`@Usage()`): the client's Idempotency-Key header as sent, and the gateway's request id.
 */
export interface UsageIdentity {
  idempotencyKey?: string;
  requestId?: string;
}

/**
 * The usage key of work a request does on its behalf (each scraped search result, an extract's
 * search), one per `parts`: derived from the request's, so a retried request (same
 * Idempotency-Key) pays for each piece once, and distinct for each piece.
 */
export function derivedUsage(
  usage: UsageIdentity,
  keyPrefix: string,
  parts: readonly string[],
): UsageIdentity {
  if (usage.idempotencyKey !== undefined) {
    const digest = createHash('sha256').update(usage.idempotencyKey).digest('hex').slice(0, 40);
    return { idempotencyKey: [`${keyPrefix}-${digest}`, ...parts].join('-') };
  }
  return { requestId: [usage.requestId ?? randomUUID(), ...parts].join(':') };
}

export interface ChargeOptions {
  usage: UsageIdentity;
  teamId: string;
  endpoint: ActivityEndpoint;
  /** Lookup prefix of the API key used (usage per key). */
  apiKey?: string;
  /** Credits held before the work starts; the work fails with 402 when the balance is short. */
  estimate: number;
}

/** What billable work reports back: its result and what it actually cost. */
export interface Charged<T> {
  result: T;
  credits: number;
}

/**
 * Credits of a request. Held from a block of the team's credits this gateway takes from billing
 * (`@wds/credits`), so a request costs no billing round trip; usage is reported in batches.
 *
 *   return this.credits.charge({ usage, teamId: team.teamId, endpoint: 'scrape', estimate: 1 }, async () => {
 *     const doc = await scrape();
 *     return { result: { success: true, data: doc }, credits: costOf(doc) };
 *   });
 *
 * Usage is keyed by the client's `Idempotency-Key` header (else the request id), so a retried
 * request does not pay twice. Failure of `run` releases the hold and rethrows.
 */
@Injectable()
export class CreditsService {
  constructor(
    private readonly messaging: Messaging,
    private readonly blocks: CreditBlocks,
    private readonly pendingGrants: PendingCreditGrants,
  ) {}

  /** `idem:<Idempotency-Key>` or `req:<request id>`; a malformed Idempotency-Key is a 400. */
  requestKey(usage: UsageIdentity): string {
    const value = usage.idempotencyKey;
    if (value !== undefined) {
      if (!IDEMPOTENCY_KEY.test(value)) {
        throw new ServiceError(
          ErrorCode.BAD_REQUEST,
          'Idempotency-Key header: 1 to 200 characters of letters, digits, ".", "_", ":" or "-"',
        );
      }
      return `idem:${value}`;
    }
    const requestId = usage.requestId;
    if (!requestId) throw new ServiceError(ErrorCode.INTERNAL, 'request has no id');
    return `req:${requestId}`;
  }

  async hold(opts: ChargeOptions): Promise<RequestCreditHold> {
    const key = this.requestKey(opts.usage);
    let hold: CreditHold;
    try {
      hold = await this.blocks.hold(opts.teamId, opts.estimate);
    } catch (err) {
      // Short only because the team's creation credits are still on their way: wait, then retry once.
      if (!isInsufficient(err) || !(await this.pendingGrants.settle(opts.teamId))) throw err;
      hold = await this.blocks.hold(opts.teamId, opts.estimate);
    }
    return {
      hold,
      key,
      endpoint: opts.endpoint,
      apiKey: opts.apiKey,
    };
  }

  /** Charges the actual cost (more or less than held) once per usage key. */
  settle(held: RequestCreditHold, actual: number): void {
    this.blocks.settle(held.hold, actual, {
      key: held.key,
      endpoint: held.endpoint,
      apiKey: held.apiKey,
    });
  }

  release(held: RequestCreditHold): void {
    this.blocks.release(held.hold);
  }

  async balance(teamId: string): Promise<number> {
    return (await this.messaging.request(RPC.creditsBalance, { teamId })).balance;
  }

  /**
   * Refuses to start a job (`what`: "a crawl", "a batch scrape", "an extract job", ...) for a team
   * whose balance is below `perPage` credits (what one page of the job holds before it runs, e.g.
   * `scrapeEstimate` of its scrape options: 5 with one LLM format): 402 INSUFFICIENT_CREDITS. The
   * job's pages hold their own credits as they run; this keeps a team from starting a job whose
   * first page it cannot pay for.
   */
  async requireCreditsToStart(teamId: string, what: string, perPage = 1): Promise<void> {
    const needed = Math.max(1, perPage);
    let short = (await this.balance(teamId)) < needed;
    if (short && (await this.pendingGrants.settle(teamId))) short = (await this.balance(teamId)) < needed;
    if (short) {
      throw new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, `Insufficient credits to start ${what}`);
    }
  }

  async grant(teamId: string, amount: number, reason: string, idempotencyKey: string): Promise<number> {
    return (await this.messaging.request(RPC.creditsGrant, { teamId, amount, reason, idempotencyKey }))
      .balance;
  }

  /** Hold `estimate` → run → settle the reported cost; release the hold when `run` throws. */
  async charge<T>(opts: ChargeOptions, run: (held: RequestCreditHold) => Promise<Charged<T>>): Promise<T> {
    const held = await this.hold(opts);
    let outcome: Charged<T>;
    try {
      outcome = await run(held);
    } catch (err) {
      this.release(held);
      throw err;
    }
    this.settle(held, outcome.credits);
    return outcome.result;
  }
}

function isInsufficient(err: unknown): boolean {
  return err instanceof ServiceError && err.code === ErrorCode.INSUFFICIENT_CREDITS;
}

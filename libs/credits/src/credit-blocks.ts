import { ErrorCode, RPC, ServiceError, type ActivityEndpoint, type CreditUsage } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';

export interface CreditBlocksOptions {
  /** Who holds the blocks, for billing's journal (service and instance). */
  holder: string;
  /** Usage is reported at most this long after the work finished. */
  flushIntervalMs?: number;
  /**
   * `settleRecorded` usage is reported within this: short, since its caller waits, but long enough
   * that many pieces of work share one report.
   */
  recordedFlushMs?: number;
  /** Usage entries per report. */
  maxBatch?: number;
  /** A team's block unused this long is closed, its rest going back to the balance. */
  idleCloseMs?: number;
  /** An open block is renewed this often (its TTL at billing is two minutes). */
  renewEveryMs?: number;
  /** First block size for a team, and the largest a block grows to while the team is busy. */
  firstBlock?: number;
  maxBlock?: number;
}

/** Credits held for one piece of work, from a block this process holds. */
/** What a piece of work's usage is recorded under: its idempotency key, endpoint and API key. */
export interface UsageLabel {
  key: string;
  endpoint: ActivityEndpoint;
  /** Public lookup prefix of the API key used (usage per key); jobs' pages may leave it out. */
  apiKey?: string;
}

function entryOf(usage: UsageLabel, amount: number): CreditUsage {
  const entry: CreditUsage = { key: usage.key, amount, endpoint: usage.endpoint };
  if (usage.apiKey !== undefined) entry.apiKey = usage.apiKey;
  return entry;
}

export interface CreditHold {
  readonly teamId: string;
  readonly amount: number;
  /** @internal */
  readonly block: Block;
  /** @internal */
  done: boolean;
}

interface Block {
  id: string;
  teamId: string;
  takenAt: number;
  lastUsedAt: number;
  lastReportAt: number;
  /** Credits of the block not yet held by work. */
  remaining: number;
  openHolds: number;
  /** Superseded or idle: takes no new holds and is closed once its holds are done. */
  retired: boolean;
  /** Billing granted less than asked (a small balance): closed as soon as its holds are done. */
  exact: boolean;
  closed: boolean;
  usage: CreditUsage[];
  reporting?: Promise<void>;
  failures: number;
}

interface TeamState {
  current?: Block;
  refill?: Promise<void>;
  nextSize: number;
}

type Rpc = Pick<Messaging, 'request'>;

/**
 * Spends a team's credits from blocks held by this process instead of two billing calls per
 * request (see libs/credits/README.md). `hold` takes credits for work from the team's block
 * (taking a new block from billing when the block is short), `settle` records what the work cost
 * (reported to billing in batches, idempotent per key), `release` returns an unused hold.
 *
 * Guarantees: a block's credits leave the balance when it is taken, so teams cannot overspend;
 * usage is idempotent per (team, key) at billing, so retries are charged once; when this process
 * dies its blocks expire and billing returns what was not reported, so the worst case is a few
 * milliseconds of unbilled work, never a double charge. Balances under 1,000 credits are served
 * exactly (billing grants one request's worth per block).
 */
export class CreditBlocks {
  private readonly teams = new Map<string, TeamState>();
  private readonly blocks = new Set<Block>();
  /** Callers of settleRecorded waiting for their usage to be on record at billing. */
  private readonly confirms = new Map<CreditUsage, () => void>();
  private readonly opts: Required<CreditBlocksOptions>;
  private flushTimer?: NodeJS.Timeout;
  private flushDue = 0;
  private housekeeping?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly rpc: Rpc,
    private readonly logger: Logger,
    options: CreditBlocksOptions,
  ) {
    this.opts = {
      flushIntervalMs: 100,
      recordedFlushMs: 5,
      maxBatch: 1000,
      idleCloseMs: 5_000,
      renewEveryMs: 30_000,
      firstBlock: 20,
      maxBlock: 1_000,
      ...options,
    };
    this.housekeeping = setInterval(() => this.tidy(), Math.min(1_000, this.opts.idleCloseMs));
    this.housekeeping.unref();
  }

  /** Holds `amount` credits for one piece of work; INSUFFICIENT_CREDITS (402) when the team is short. */
  async hold(teamId: string, amount: number): Promise<CreditHold> {
    if (this.stopped) throw new Error('credit blocks are stopped');
    const team = this.team(teamId);
    for (;;) {
      const block = team.current;
      if (block && !block.retired && block.remaining >= amount) {
        block.remaining -= amount;
        block.openHolds++;
        block.lastUsedAt = Date.now();
        return { teamId, amount, block, done: false };
      }
      const joined = team.refill !== undefined;
      team.refill ??= this.refill(team, teamId, amount).finally(() => (team.refill = undefined));
      try {
        await team.refill;
      } catch (err) {
        // Another request's refill failed (it may have needed more than this one): try our own.
        if (joined) continue;
        throw err;
      }
    }
  }

  /**
   * Records what the held work cost under `key` (charged once per team and key); reported with
   * the next batch, within `flushIntervalMs`.
   */
  settle(hold: CreditHold, actual: number, usage: UsageLabel): void {
    if (this.record(hold, entryOf(usage, actual))) this.scheduleFlush();
  }

  /**
   * Like `settle`, but resolves only once billing has recorded the usage (sent at once, or with
   * the report already in flight): for durable work that must not be marked done before its cost
   * is on record. Rejects with SERVICE_UNAVAILABLE after `timeoutMs`; the usage stays queued and
   * a retry of the work under the same key is charged once.
   */
  settleRecorded(hold: CreditHold, actual: number, usage: UsageLabel, timeoutMs = 15_000): Promise<void> {
    const entry = entryOf(usage, actual);
    const recorded = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.confirms.delete(entry);
        reject(new ServiceError(ErrorCode.SERVICE_UNAVAILABLE, 'billing did not record the usage in time'));
      }, timeoutMs);
      timer.unref();
      this.confirms.set(entry, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (this.record(hold, entry)) this.scheduleFlush(this.opts.recordedFlushMs);
    else this.confirms.get(entry)?.();
    return recorded;
  }

  /** Books usage against the hold's block; false when the hold was already settled or released. */
  private record(hold: CreditHold, entry: CreditUsage): boolean {
    if (hold.done) return false;
    hold.done = true;
    const block = hold.block;
    block.openHolds--;
    // Over or under the hold: the block's local view follows; billing charges what is reported.
    if (!block.retired) block.remaining += hold.amount - entry.amount;
    block.usage.push(entry);
    this.afterHold(block);
    return true;
  }

  /** Returns a hold whose work did not happen (nothing is charged). */
  release(hold: CreditHold): void {
    if (hold.done) return;
    hold.done = true;
    const block = hold.block;
    block.openHolds--;
    if (!block.retired) block.remaining += hold.amount;
    this.afterHold(block);
  }

  /** Reports all usage and closes every block (on shutdown, after the work in flight is done). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.housekeeping);
    clearTimeout(this.flushTimer);
    for (const block of this.blocks) block.retired = true;
    for (let attempt = 0; attempt < 3 && this.blocks.size > 0; attempt++) {
      await Promise.all([...this.blocks].map((b) => this.report(b)));
    }
  }

  /** Blocks this process holds, for metrics and tests. */
  heldBlocks(): { teamId: string; remaining: number; openHolds: number; pendingUsage: number }[] {
    return [...this.blocks].map((b) => ({
      teamId: b.teamId,
      remaining: b.remaining,
      openHolds: b.openHolds,
      pendingUsage: b.usage.length,
    }));
  }

  private team(teamId: string): TeamState {
    let team = this.teams.get(teamId);
    if (!team) {
      team = { nextSize: this.opts.firstBlock };
      this.teams.set(teamId, team);
    }
    return team;
  }

  private async refill(team: TeamState, teamId: string, amount: number): Promise<void> {
    const old = team.current;
    if (old) {
      // A block used up quickly means a busy team: the next one is larger, up to maxBlock.
      const lasted = Date.now() - old.takenAt;
      if (lasted < 2_000) team.nextSize = Math.min(this.opts.maxBlock, team.nextSize * 2);
      else if (lasted > 20_000) team.nextSize = Math.max(this.opts.firstBlock, Math.floor(team.nextSize / 2));
      // Its unused rest must be back in the balance before billing decides the next grant.
      const closing = this.retire(team, old);
      if (closing) await closing;
    }
    const wanted = Math.max(team.nextSize, amount);
    const reply = await this.rpc.request(RPC.creditsBlockTake, {
      teamId,
      amount: wanted,
      minimum: amount,
      holder: this.opts.holder,
    });
    const now = Date.now();
    const block: Block = {
      id: reply.reservationId,
      teamId,
      takenAt: now,
      lastUsedAt: now,
      lastReportAt: now,
      remaining: reply.granted,
      openHolds: 0,
      retired: false,
      exact: reply.granted < wanted,
      closed: false,
      usage: [],
      failures: 0,
    };
    this.blocks.add(block);
    team.current = block;
  }

  /** Takes the block out of service; the returned promise settles when it is closed (if idle). */
  private retire(team: TeamState, block: Block): Promise<void> | undefined {
    block.retired = true;
    if (team.current === block) team.current = undefined;
    return block.openHolds === 0 ? this.report(block).catch(() => undefined) : undefined;
  }

  /** After a hold ends: closes a retired or exact block whose last hold that was. */
  private afterHold(block: Block): void {
    if (block.openHolds > 0) return;
    if (block.retired) this.report(block).catch(() => undefined);
    else if (block.exact) void this.retire(this.team(block.teamId), block);
  }

  /** Flushes pending usage in `delayMs` (or sooner, when a flush is already due earlier). */
  private scheduleFlush(delayMs = this.opts.flushIntervalMs): void {
    if (this.stopped) return;
    const due = Date.now() + delayMs;
    if (this.flushTimer && this.flushDue <= due) return;
    clearTimeout(this.flushTimer);
    this.flushDue = due;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      // report() never rejects: a failed report keeps its usage for the next try.
      for (const block of this.blocks) if (block.usage.length > 0) void this.report(block);
    }, delayMs);
    this.flushTimer.unref();
  }

  /** Sends the block's pending usage (closing it when retired and idle); one report per block at a time. */
  private report(block: Block): Promise<void> {
    if (block.closed) return Promise.resolve();
    if (block.reporting) {
      return block.reporting.then(() => {
        if (block.usage.length > 0 || (block.retired && block.openHolds === 0)) return this.report(block);
      });
    }
    const usage = block.usage.splice(0, this.opts.maxBatch);
    const close = block.retired && block.openHolds === 0 && block.usage.length === 0;
    block.reporting = this.rpc
      .request(RPC.creditsUsageReport, { reservationId: block.id, usage, close })
      .then(
        (reply) => {
          for (const entry of usage) {
            const confirm = this.confirms.get(entry);
            if (confirm) {
              this.confirms.delete(entry);
              confirm();
            }
          }
          block.failures = 0;
          block.lastReportAt = Date.now();
          if (close) this.forget(block);
          // A block billing already settled (it expired) takes no more holds, but the usage of
          // holds still running is reported against it (billing charges late usage from the
          // balance); it is forgotten after the close that follows its last hold.
          else if (!reply.open && !block.retired) void this.retire(this.team(block.teamId), block);
        },
        (err: unknown) => {
          // Put the usage back in front and let the next tick retry; billing dedups by key.
          block.usage.unshift(...usage);
          block.failures++;
          this.logger.warn(
            { err, reservationId: block.id, entries: usage.length, failures: block.failures },
            'could not report credit usage; will retry',
          );
        },
      )
      .finally(() => {
        block.reporting = undefined;
        // After a failure the housekeeping tick (once a second) retries, not the regular flush.
        if (block.usage.length > 0 && block.failures === 0) {
          const awaited = block.usage.some((entry) => this.confirms.has(entry));
          this.scheduleFlush(awaited ? this.opts.recordedFlushMs : this.opts.flushIntervalMs);
        }
      });
    return block.reporting;
  }

  private forget(block: Block): void {
    block.closed = true;
    this.blocks.delete(block);
    const team = this.teams.get(block.teamId);
    if (team?.current === block) team.current = undefined;
    if (team && !team.current && !team.refill) this.teams.delete(block.teamId);
  }

  /** Closes idle blocks, renews long-held ones, retries failed reports. */
  private tidy(): void {
    const now = Date.now();
    for (const block of this.blocks) {
      if (block.reporting) continue;
      if (!block.retired && block.openHolds === 0 && now - block.lastUsedAt >= this.opts.idleCloseMs) {
        void this.retire(this.team(block.teamId), block);
      } else if (block.usage.length > 0 || now - block.lastReportAt >= this.opts.renewEveryMs) {
        this.report(block).catch(() => undefined);
      } else if (block.retired && block.openHolds === 0) {
        this.report(block).catch(() => undefined);
      }
    }
  }
}

import { DUPLICATE_WINDOW_MS } from '@wds/contracts';
import type { Logger } from '@wds/observability';
import type { JobEvents } from './job-events';
import type { JobStore } from './job-store';
import type { JobRow } from './job.types';
import type { PageDispatcher } from './page-dispatcher';
import { claimAndPublish } from './team-wake';

/** A first dispatch this old and still unfinished is published again (its first msgId). */
const LOST_PUBLISH_AFTER_MS = 4000;
/** ...as long as the stream still remembers the first msgId (its duplicate window), with a margin. */
const LOST_PUBLISH_WITHIN_MS = DUPLICATE_WINDOW_MS - 20_000;

export interface WatchdogOptions {
  /** How often one pass runs. */
  intervalMs: number;
  /** A dispatched page unfinished this long is published again (its task may be lost). */
  redispatchAfterMs: number;
  /** A running job without progress this long is reconciled (queue and completion re-checked). */
  reconcileAfterMs: number;
  /** A running job without progress this long fails, with the reason in its errors. */
  failAfterMs: number;
  /** Called for idle jobs that are not seeded yet (the service re-sends its seeding work). */
  reseed?: (job: JobRow) => Promise<void>;
}

/**
 * Makes every job reach a final status, whatever died where: republishes page tasks lost between
 * a commit and its publish, repairs counters and completion of idle jobs, fails jobs whose work
 * stalled, and deletes jobs past their retention. Also renews the team-slot leases of running
 * jobs and lets jobs waiting for team slots claim (a wake-up may have been lost). Safe on every replica (row locks, SKIP LOCKED,
 * idempotent steps).
 */
export class JobWatchdog {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;

  constructor(
    private readonly store: JobStore,
    private readonly dispatcher: PageDispatcher,
    private readonly events: JobEvents,
    private readonly logger: Logger,
    private readonly opts: WatchdogOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce(), this.opts.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.pass;
  }

  runOnce(): Promise<void> {
    this.pass ??= this.sweep()
      .catch((err: unknown) => this.logger.warn({ err }, 'job watchdog pass failed'))
      .finally(() => (this.pass = undefined));
    return this.pass;
  }

  private async sweep(): Promise<void> {
    // Team slots of running jobs keep counting while a replica of their service is alive.
    await this.store.renewTeamLeases();
    // Jobs held back by their team's limit are woken when slots free up; this catches lost wake-ups.
    for (const jobId of await this.store.teamWaiting()) {
      await claimAndPublish({ store: this.store, dispatcher: this.dispatcher, events: this.events }, jobId);
    }
    // Tasks lost between a claim's commit and its publish (the process died, NATS was away) are
    // published again within seconds, under their first msgId: a no-op where the first arrived.
    const lost = await this.store.unfinishedFirstDispatches(LOST_PUBLISH_AFTER_MS, LOST_PUBLISH_WITHIN_MS);
    if (lost.length) await this.dispatcher.publish(lost);
    const stalled = await this.store.stalledDispatches(this.opts.redispatchAfterMs);
    if (stalled.length) {
      this.logger.warn({ pages: stalled.length }, 'republishing page tasks that made no progress');
      await this.dispatcher.publish(stalled, { republish: true });
    }
    for (const job of await this.store.idleJobs(this.opts.reconcileAfterMs)) {
      const idleMs = Date.now() - job.progressedAt.getTime();
      if (!job.seeded && this.opts.reseed) await this.opts.reseed(job);
      const outcome = await this.store.reconcile(job.id);
      await this.dispatcher.publish(outcome.dispatch);
      if (outcome.finished) {
        await this.events.lifecycle(job, 'completed');
        continue;
      }
      const fresh = await this.store.get(job.id);
      if (fresh?.status === 'scraping' && idleMs > this.opts.failAfterMs) {
        const reason = `The job made no progress for ${Math.round(this.opts.failAfterMs / 1000)} s and was stopped`;
        if (await this.store.end(job.id, 'failed', reason)) {
          this.logger.error({ jobId: job.id }, 'job failed: no progress');
          await this.events.lifecycle(job, 'failed');
        }
      }
    }
    const purged = await this.store.purgeExpired();
    if (purged) this.logger.info({ purged }, 'deleted expired jobs');
  }
}

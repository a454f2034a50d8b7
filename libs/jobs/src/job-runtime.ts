import type { Logger } from '@wds/observability';
import type { Messaging } from '@wds/messaging';
import { JobEvents, type JobPageEvents } from './job-events';
import type { TxRunner } from './job-reader';
import { DEFAULT_TEAM_LEASE_MS, JobStore } from './job-store';
import type { JobRow } from './job.types';
import { JobWatchdog, type WatchdogOptions } from './job-watchdog';
import { PageDispatcher } from './page-dispatcher';
import { PageRunner, type PageRunnerOptions } from './page-runner';
import { TeamWake } from './team-wake';

export interface JobRuntimeOptions {
  /** The service's PostgreSQL schema (its job tables and `finish_page`). */
  schema: string;
  runner: PageRunnerOptions;
  /** `WDS_JOB_PAGE_EVENTS`: page events only for webhooks that want them (default), or all. */
  pageEvents?: JobPageEvents;
  /** The watchdog's timings; `reseed` gets the runtime, built by then. */
  watchdog: Omit<WatchdogOptions, 'reseed'> & {
    reseed?: (job: JobRow, runtime: JobRuntime) => Promise<void>;
  };
}

/**
 * The machinery every page-job service (crawler, batch) runs the same way: the job store, events,
 * page dispatcher and runner, the watchdog and the team wake-ups (a team's slots are shared by all
 * its crawl and batch jobs, so a wake-up reaches whichever service runs a job). A service adds its
 * own RPCs and use cases on top, built from these parts.
 */
export class JobRuntime {
  readonly store: JobStore;
  readonly events: JobEvents;
  readonly dispatcher: PageDispatcher;
  readonly runner: PageRunner;
  readonly watchdog: JobWatchdog;
  readonly teamWake: TeamWake;

  constructor(
    messaging: Messaging,
    database: TxRunner,
    logger: Logger,
    private readonly opts: JobRuntimeOptions,
  ) {
    const kind = opts.runner.jobKind;
    this.teamWake = new TeamWake(messaging, logger);
    this.store = new JobStore(database, opts.schema, {
      teamWaker: this.teamWake,
      // The watchdog renews the leases of running jobs: several passes fit in one lease.
      teamLeaseMs: Math.max(DEFAULT_TEAM_LEASE_MS, 4 * opts.watchdog.intervalMs),
    });
    const lifecycleBodies = opts.runner.hooks.lifecycleEvent?.bind(opts.runner.hooks);
    this.events = new JobEvents(messaging, kind, {
      pageEvents: opts.pageEvents ?? 'webhook',
      ...(lifecycleBodies ? { lifecycleBodies } : {}),
    });
    this.dispatcher = new PageDispatcher(messaging, opts.runner.subject, kind);
    this.runner = new PageRunner(messaging, this.store, this.events, logger, opts.runner);
    const { reseed, ...timings } = opts.watchdog;
    this.watchdog = new JobWatchdog(this.store, this.dispatcher, this.events, logger, {
      ...timings,
      ...(reseed ? { reseed: (job) => reseed(job, this) } : {}),
    });
  }

  /** Serves team wake-ups, starts the page runner and the watchdog. */
  async start(): Promise<void> {
    this.teamWake.serve(this.opts.runner.jobKind, {
      store: this.store,
      dispatcher: this.dispatcher,
      events: this.events,
    });
    await this.runner.start();
    this.watchdog.start();
  }

  async stop(): Promise<void> {
    await this.watchdog.stop();
    await this.teamWake.stop();
    await this.runner.stop();
  }
}

import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CRAWL_CONSUMERS, CRAWL_RPC, CRAWL_WORK } from '@wds/contracts';
import { Database } from '@wds/database';
import {
  JobEvents,
  JobQueries,
  JobStore,
  JobWatchdog,
  PageDispatcher,
  PageRunner,
  TeamWake,
  DEFAULT_TEAM_LEASE_MS,
} from '@wds/jobs';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { CrawlerConfig } from '../config';
import { MapSiteUseCase } from '../map/map.usecase';
import { CrawlContexts } from './crawl-context';
import { CrawlPageHooks } from './crawl-page.hooks';
import { CreateCrawlUseCase } from './create-crawl.usecase';
import { KickoffCrawlUseCase } from './kickoff.usecase';
import { SiteFetcher } from './site-fetcher';

const HOUR = 3_600_000;

/**
 * The crawler's runtime: serves the crawl and map RPCs, consumes kickoff and page tasks (any
 * number of replicas share them through the durable consumers) and runs the job watchdog.
 */
@Injectable()
export class CrawlService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly store: JobStore;
  private readonly events: JobEvents;
  private readonly dispatcher: PageDispatcher;
  private readonly runner: PageRunner;
  private readonly watchdog: JobWatchdog;
  private readonly teamWake: TeamWake;
  private kickoffConsumer?: { stop(): Promise<void> };

  constructor(
    private readonly messaging: Messaging,
    database: Database,
    private readonly fetcher: SiteFetcher,
    @Inject(APP_CONFIG) private readonly config: CrawlerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    // Team slots are shared with the team's batch jobs; wake-ups reach whichever service runs a job.
    this.teamWake = new TeamWake(messaging, logger);
    this.store = new JobStore(database, 'crawler', {
      teamWaker: this.teamWake,
      // The watchdog renews the leases of running jobs: several passes fit in one lease.
      teamLeaseMs: Math.max(DEFAULT_TEAM_LEASE_MS, 4 * config.WDS_CRAWL_WATCHDOG_INTERVAL_MS),
    });
    this.events = new JobEvents(messaging, 'crawl');
    this.dispatcher = new PageDispatcher(messaging, CRAWL_WORK.page, 'crawl');
    this.runner = new PageRunner(messaging, this.store, logger, {
      jobKind: 'crawl',
      endpoint: 'crawl',
      subject: CRAWL_WORK.page,
      consumer: { ...CRAWL_CONSUMERS.page, ackWaitMs: config.WDS_CRAWL_ACK_WAIT_MS },
      concurrency: config.WDS_CRAWL_WORKER_CONCURRENCY,
      hooks: new CrawlPageHooks(new CrawlContexts()),
    });
    this.watchdog = new JobWatchdog(this.store, this.dispatcher, this.events, logger, {
      intervalMs: config.WDS_CRAWL_WATCHDOG_INTERVAL_MS,
      redispatchAfterMs: config.WDS_CRAWL_REDISPATCH_MS,
      reconcileAfterMs: config.WDS_CRAWL_RECONCILE_MS,
      failAfterMs: config.WDS_CRAWL_STALL_FAIL_MS,
      reseed: (job) =>
        this.messaging.publish(
          CRAWL_WORK.kickoff,
          { crawlId: job.id, teamId: job.teamId },
          { msgId: `kickoff:${job.id}:${Date.now()}` },
        ),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const create = new CreateCrawlUseCase(
      this.store,
      this.messaging,
      this.events,
      this.config.WDS_CRAWL_RETENTION_HOURS * HOUR,
    );
    const kickoff = new KickoffCrawlUseCase(this.store, this.fetcher, this.dispatcher, this.events);
    const map = new MapSiteUseCase(this.messaging, this.fetcher);
    this.messaging.serve(CRAWL_RPC.create, (req) => create.execute(req));
    this.messaging.serve(CRAWL_RPC.map, (req) => map.execute(req));
    new JobQueries(this.messaging, this.store, this.events, {
      kind: 'crawl',
      rpcs: CRAWL_RPC,
      activeOptions: (job) => {
        const { url: _url, webhook: _webhook, ...options } = job.options;
        return options;
      },
    }).serve();
    this.kickoffConsumer = await this.messaging.consume(
      CRAWL_WORK.kickoff,
      CRAWL_CONSUMERS.kickoff,
      (msg) => kickoff.execute(msg),
      { concurrency: 4, retryDelayMs: 5000 },
    );
    this.teamWake.serve('crawl', { store: this.store, dispatcher: this.dispatcher, events: this.events });
    await this.runner.start();
    this.watchdog.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.watchdog.stop();
    await this.teamWake.stop();
    await this.runner.stop();
    await this.kickoffConsumer?.stop();
    await this.fetcher.close();
    this.logger.info('crawl workers stopped');
  }
}

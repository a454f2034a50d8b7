import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CRAWL_CONSUMERS, CRAWL_RPC, CRAWL_WORK } from '@wds/contracts';
import { Database } from '@wds/database';
import { JobQueries, JobRuntime } from '@wds/jobs';
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

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The crawler's runtime: the job machinery (store, events, page runner, watchdog, team wake-ups)
 * and the use cases `CrawlController` serves (crawl and map RPCs, kickoff and page tasks, handlers of
 * the WDS transport, ADR 0001) and the job queries (status, errors, cancel, ...) the module's
 * `jobQueriesController` serves. Shutdown: the transport stops the consumers first (their
 * in-flight tasks finish), then this stops the watchdog and hands unused credits back.
 */
@Injectable()
export class CrawlService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly jobs: JobRuntime;
  readonly create: CreateCrawlUseCase;
  readonly kickoff: KickoffCrawlUseCase;
  readonly map: MapSiteUseCase;
  readonly queries: JobQueries;

  constructor(
    private readonly messaging: Messaging,
    database: Database,
    private readonly fetcher: SiteFetcher,
    @Inject(APP_CONFIG) private readonly config: CrawlerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.jobs = new JobRuntime(messaging, database, logger, {
      schema: 'crawler',
      runner: {
        jobKind: 'crawl',
        endpoint: 'crawl',
        subject: CRAWL_WORK.page,
        consumer: { ...CRAWL_CONSUMERS.page, ackWaitMs: config.WDS_CRAWL_ACK_WAIT_MS },
        concurrency: config.WDS_CRAWL_WORKER_CONCURRENCY,
        delivery: 'transport',
        hooks: new CrawlPageHooks(new CrawlContexts()),
      },
      pageEvents: config.WDS_JOB_PAGE_EVENTS,
      watchdog: {
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
      },
    });
    const { store, events, dispatcher } = this.jobs;
    this.create = new CreateCrawlUseCase(store, this.messaging, events, {
      retentionMs: config.WDS_CRAWL_RETENTION_HOURS * HOUR,
      zdrRetentionMs: config.WDS_CRAWL_ZDR_RETENTION_MINUTES * MINUTE,
    });
    this.kickoff = new KickoffCrawlUseCase(store, this.fetcher, dispatcher, events);
    this.map = new MapSiteUseCase(this.messaging, this.fetcher);
    this.queries = new JobQueries(this.messaging, store, events, {
      kind: 'crawl',
      rpcs: CRAWL_RPC,
      activeOptions: (job) => {
        const { url: _url, webhook: _webhook, ...options } = job.options;
        return options;
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.jobs.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.jobs.stop();
    await this.fetcher.close();
    this.logger.info('crawl workers stopped');
  }
}

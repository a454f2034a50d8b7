import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CRAWL_RPC, CRAWL_WORK } from '@wds/contracts';
import { Database } from '@wds/database';
import { createJobRuntime, JobQueries, jobServiceSettings, type JobRuntime } from '@wds/jobs';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { CrawlerConfig } from '../config';
import { CRAWL_JOB_KIT } from '../crawler.job-kit';
import { MapSiteUseCase } from '../map/map.usecase';
import { ChangeRecheckUseCase } from './change-recheck';
import { CrawlContexts } from './crawl-context';
import { CrawlPageHooks } from './crawl-page.hooks';
import { CreateCrawlUseCase } from './create-crawl.usecase';
import { KickoffCrawlUseCase } from './kickoff.usecase';
import { SiteFetcher } from './site-fetcher';

/**
 * The crawler's runtime: the job machinery of the kit (store, events, page runner, watchdog, team
 * wake-ups; `createJobRuntime`, ADR 0024), the use cases `CrawlController` serves (crawl and map
 * RPCs, kickoffs) and the job queries (status, errors, cancel, ...) the kit's controllers serve. Shutdown: the transport stops the consumers first (their
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
    const settings = jobServiceSettings(config, CRAWL_JOB_KIT.envPrefix);
    this.jobs = createJobRuntime(
      CRAWL_JOB_KIT,
      { messaging, database, logger },
      {
        settings,
        hooks: new CrawlPageHooks(new CrawlContexts(), (job) =>
          this.messaging.publish(
            CRAWL_WORK.kickoff,
            { crawlId: job.id, teamId: job.teamId },
            { msgId: `recheck:${job.id}` },
          ),
        ),
        reseed: (job) =>
          this.messaging.publish(
            CRAWL_WORK.kickoff,
            { crawlId: job.id, teamId: job.teamId },
            { msgId: `kickoff:${job.id}:${Date.now()}` },
          ),
      },
    );
    const { store, events, dispatcher } = this.jobs;
    this.create = new CreateCrawlUseCase(store, this.messaging, events, {
      retentionMs: settings.retentionMs,
      zdrRetentionMs: settings.zdrRetentionMs,
    });
    this.kickoff = new KickoffCrawlUseCase(
      store,
      this.fetcher,
      dispatcher,
      events,
      new ChangeRecheckUseCase(store, this.messaging, dispatcher, events),
    );
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

import { Module } from '@nestjs/common';
import { CRAWL_RPC } from '@wds/contracts';
import { jobQueriesController } from '@wds/jobs';
import { APP_CONFIG } from '@wds/service-kit';
import type { CrawlerConfig } from '../config';
import { CrawlController } from './crawl.controller';
import { CrawlService } from './crawl.service';
import { OutboundSiteFetcher, SiteFetcher } from './site-fetcher';

const CRAWL_JOB_QUERIES = Symbol('CRAWL_JOB_QUERIES');

/** Crawls and maps: RPCs for the gateway, page and kickoff consumers (CrawlController), the job watchdog. */
@Module({
  controllers: [CrawlController, jobQueriesController(CRAWL_RPC, CRAWL_JOB_QUERIES)],
  providers: [
    CrawlService,
    { provide: CRAWL_JOB_QUERIES, inject: [CrawlService], useFactory: (s: CrawlService) => s.queries },
    {
      provide: SiteFetcher,
      inject: [APP_CONFIG],
      useFactory: (config: CrawlerConfig) => new OutboundSiteFetcher(config.WDS_PRIVATE_NETWORK_ALLOWLIST),
    },
  ],
})
export class CrawlModule {}

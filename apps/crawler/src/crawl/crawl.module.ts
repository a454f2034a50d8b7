import { Module } from '@nestjs/common';
import { jobServiceModule } from '@wds/jobs';
import { APP_CONFIG } from '@wds/service-kit';
import type { CrawlerConfig } from '../config';
import { CRAWL_JOB_KIT } from '../crawler.job-kit';
import { CrawlController } from './crawl.controller';
import { CrawlService } from './crawl.service';
import { OutboundSiteFetcher, SiteFetcher } from './site-fetcher';

/**
 * Crawls and maps: the crawl, map and kickoff handlers (CrawlController); the page tasks, the job
 * queries and the watchdog are the job kit's (libs/jobs `jobServiceModule`, ADR 0024).
 */
@Module(
  jobServiceModule(CRAWL_JOB_KIT, CrawlService, {
    controllers: [CrawlController],
    providers: [
      {
        provide: SiteFetcher,
        inject: [APP_CONFIG],
        useFactory: (config: CrawlerConfig) => new OutboundSiteFetcher(config.WDS_PRIVATE_NETWORK_ALLOWLIST),
      },
    ],
  }),
)
export class CrawlModule {}

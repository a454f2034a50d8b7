import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@wds/service-kit';
import type { CrawlerConfig } from '../config';
import { CrawlController } from './crawl.controller';
import { CrawlService } from './crawl.service';
import { OutboundSiteFetcher, SiteFetcher } from './site-fetcher';

/** Crawls and maps: RPCs for the gateway, page and kickoff consumers (CrawlController), the job watchdog. */
@Module({
  controllers: [CrawlController],
  providers: [
    CrawlService,
    {
      provide: SiteFetcher,
      inject: [APP_CONFIG],
      useFactory: (config: CrawlerConfig) => new OutboundSiteFetcher(config.WDS_PRIVATE_NETWORK_ALLOWLIST),
    },
  ],
})
export class CrawlModule {}

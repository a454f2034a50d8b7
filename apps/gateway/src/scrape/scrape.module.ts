import { Module } from '@nestjs/common';
import { ScrapeClient } from '@wds/jobs';
import { Messaging } from '@wds/messaging';
import { APP_CONFIG } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { CreditsModule } from '../credits/credits.module';
import { GetScrapeUseCase } from './get-scrape.usecase';
import { HitRecorder } from './hit-recorder';
import { HotScrapeCache } from './hot-scrape-cache';
import { ScrapeController } from './scrape.controller';
import { ScrapePageUseCase } from './scrape-page.usecase';

/** POST /v2/scrape and GET /v2/scrape/{id}, served by the scraper service over NATS. */
@Module({
  imports: [CreditsModule],
  controllers: [ScrapeController],
  providers: [
    ScrapePageUseCase,
    GetScrapeUseCase,
    { provide: ScrapeClient, inject: [Messaging], useFactory: (m: Messaging) => new ScrapeClient(m) },
    {
      provide: HotScrapeCache,
      inject: [APP_CONFIG],
      useFactory: (c: GatewayConfig) => new HotScrapeCache(c.WDS_GATEWAY_HOT_CACHE_MB * 1024 * 1024),
    },
    { provide: HitRecorder, inject: [Messaging], useFactory: (m: Messaging) => new HitRecorder(m) },
  ],
  exports: [ScrapeClient, ScrapePageUseCase],
})
export class ScrapeModule {}

import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { GetScrapeUseCase } from './get-scrape.usecase';
import { ScrapeController } from './scrape.controller';
import { ScrapeDocumentReader } from './scrape-document.reader';
import { ScrapePageUseCase } from './scrape-page.usecase';

/** POST /v2/scrape and GET /v2/scrape/{id}, served by the scraper service over NATS. */
@Module({
  imports: [CreditsModule],
  controllers: [ScrapeController],
  providers: [ScrapePageUseCase, GetScrapeUseCase, ScrapeDocumentReader],
})
export class ScrapeModule {}

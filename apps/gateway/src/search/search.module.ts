import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { ScrapeModule } from '../scrape/scrape.module';
import { SearchController } from './search.controller';
import { SearchWebUseCase } from './search-web.usecase';

/** POST /v2/search: the operator's SearXNG asked over HTTP; results scraped through the scraper. */
@Module({
  imports: [CreditsModule, ScrapeModule],
  controllers: [SearchController],
  providers: [SearchWebUseCase],
  // Extract jobs without urls (or with enableWebSearch) find their pages with it.
  exports: [SearchWebUseCase],
})
export class SearchModule {}

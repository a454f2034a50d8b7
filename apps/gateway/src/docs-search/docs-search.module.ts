import { Module } from '@nestjs/common';
import { DocsSearchRateLimiter } from './docs-search-rate-limiter';
import { DocsSearchController } from './docs-search.controller';
import { SearchDocs } from './search-docs.usecase';

@Module({ controllers: [DocsSearchController], providers: [SearchDocs, DocsSearchRateLimiter] })
export class DocsSearchModule {}

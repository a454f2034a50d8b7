import { Module } from '@nestjs/common';
import { AdminModule } from './admin/admin.module';
import { ArtifactsModule } from './artifacts/artifacts.module';
import { AuthModule } from './auth/auth.module';
import { BatchModule } from './batch/batch.module';
import { ExtractModule } from './extract/extract.module';
import { BrowserModule } from './browser/browser.module';
import { BootstrapModule } from './bootstrap/bootstrap.module';
import { CrawlModule } from './crawl/crawl.module';
import { DocsSearchModule } from './docs-search/docs-search.module';
import { HealthModule } from './health/health.module';
import { HttpModule } from './http/http.module';
import { LimitsModule } from './limits/limits.module';
import { OpenApiModule } from './openapi/openapi.module';
import { ScrapeModule } from './scrape/scrape.module';
import { SearchModule } from './search/search.module';
import { TeamModule } from './team/team.module';
import { PendingRoutesModule } from './pending-routes/pending-routes.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({
  imports: [
    HttpModule,
    AuthModule,
    LimitsModule,
    BootstrapModule,
    AdminModule,
    HealthModule,
    OpenApiModule,
    ScrapeModule,
    ArtifactsModule,
    CrawlModule,
    BatchModule,
    ExtractModule,
    TeamModule,
    BrowserModule,
    WebhooksModule,
    DocsSearchModule,
    SearchModule,
    PendingRoutesModule,
  ],
})
export class AppModule {}

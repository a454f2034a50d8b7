// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'scraper' });

import path from 'node:path';
import { runServiceMain } from '@wds/service-kit';
import { AppModule } from './app.module';
import { ScraperConfig } from './config';
import { SCRAPER_STREAMS } from './streams';

runServiceMain({
  kind: 'scraper',
  module: AppModule,
  configSchema: ScraperConfig,
  migrations: { schema: 'scraper', dir: path.join(__dirname, '..', 'migrations') },
  streams: SCRAPER_STREAMS,
});

import path from 'node:path';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { ScraperConfig } from './config';
import { SCRAPER_STREAMS } from './streams';

/** How the scraper process boots; shared by main.ts and any test that runs it in-process. */
export function scraperServiceOptions(env?: NodeJS.ProcessEnv): ServiceOptions<typeof ScraperConfig> {
  return {
    kind: 'scraper',
    module: AppModule,
    configSchema: ScraperConfig,
    migrations: { schema: 'scraper', dir: path.join(__dirname, '..', 'migrations') },
    streams: SCRAPER_STREAMS,
    ...(env ? { env } : {}),
  };
}

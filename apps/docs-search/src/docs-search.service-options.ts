import path from 'node:path';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { DocsSearchConfig } from './config';

/** How the docs-search process boots; shared by main.ts and any test that runs it in-process. */
export function docsSearchServiceOptions(env?: NodeJS.ProcessEnv): ServiceOptions<typeof DocsSearchConfig> {
  return {
    kind: 'docs-search',
    module: AppModule,
    configSchema: DocsSearchConfig,
    migrations: { schema: 'docs_search', dir: path.join(__dirname, '..', 'migrations') },
    ...(env ? { env } : {}),
  };
}

import path from 'node:path';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { BrowserPoolConfig } from './config';

/** How the browser-pool process boots; shared by main.ts and any test that runs it in-process. */
export function browserPoolServiceOptions(env?: NodeJS.ProcessEnv): ServiceOptions<typeof BrowserPoolConfig> {
  return {
    kind: 'browser-pool',
    module: AppModule,
    configSchema: BrowserPoolConfig,
    migrations: { schema: 'browser_pool', dir: path.join(__dirname, '..', 'migrations') },
    ...(env ? { env } : {}),
  };
}

import path from 'node:path';
import { STREAMS } from '@wds/contracts';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { WebhooksConfig } from './config';

/** How the webhooks process is started; main.ts and the integration tests share it. */
export function webhooksServiceOptions(
  env: NodeJS.ProcessEnv = process.env,
): ServiceOptions<typeof WebhooksConfig> {
  return {
    kind: 'webhooks',
    module: AppModule,
    configSchema: WebhooksConfig,
    migrations: { schema: 'webhooks', dir: path.join(__dirname, '..', 'migrations') },
    // The consumer needs its stream, and its dead letters need theirs, whoever starts first.
    streams: [STREAMS.WDS_EVENTS_V1, STREAMS.WDS_DLQ_V1],
    env,
  };
}

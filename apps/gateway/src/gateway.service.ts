import path from 'node:path';
import { parseEnv } from '@wds/config';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { GatewayConfig } from './config';
import { configureHttp } from './http/configure-http';

/** How the gateway process is started; main.ts and the integration tests share it. */
export function gatewayServiceOptions(
  env: NodeJS.ProcessEnv = process.env,
): ServiceOptions<typeof GatewayConfig> {
  // Parsed here only for the listening address; bootstrapService parses (and reports) the rest.
  const { PORT, HOST } = parseEnv(GatewayConfig.pick({ PORT: true, HOST: true }), env);
  return {
    kind: 'gateway',
    module: AppModule,
    configSchema: GatewayConfig,
    migrations: { schema: 'gateway', dir: path.join(__dirname, '..', 'migrations') },
    http: { port: PORT, host: HOST, configure: configureHttp },
    env,
  };
}

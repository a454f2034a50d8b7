import path from 'node:path';
import { parseEnv } from '@wds/config';
import { STREAMS } from '@wds/contracts';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { GatewayConfig } from './config';
import { configureHttp, fastifyOptions } from './http/configure-http';

/** How the gateway process is started; main.ts and the integration tests share it. */
export function gatewayServiceOptions(
  env: NodeJS.ProcessEnv = process.env,
): ServiceOptions<typeof GatewayConfig> {
  const { PORT, HOST } = listenAddress(env);
  return {
    kind: 'gateway',
    module: AppModule,
    configSchema: GatewayConfig,
    migrations: { schema: 'gateway', dir: path.join(__dirname, '..', 'migrations') },
    http: { port: PORT, host: HOST, configure: configureHttp, fastify: fastifyOptions() },
    // Cache hits answered from hot copies are published here (ADR 0006).
    streams: [STREAMS.WDS_SCRAPE_HITS_V1],
    env,
  };
}

/**
 * Read here only for the listening address. Bad values fall back to the defaults: bootstrapService
 * parses the whole schema next and reports every bad variable, these included.
 */
function listenAddress(env: NodeJS.ProcessEnv): { PORT: number; HOST: string } {
  try {
    return parseEnv(GatewayConfig.pick({ PORT: true, HOST: true }), env);
  } catch {
    return { PORT: 3002, HOST: '0.0.0.0' };
  }
}

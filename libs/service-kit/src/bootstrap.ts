import { Module, type DynamicModule, type INestApplication, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Service } from '@nats-io/services';
import type { FastifyServerOptions } from 'fastify';
import { CommonEnv, ConfigError, parseEnv } from '@wds/config';
import type { ServiceKind, StreamDef } from '@wds/contracts';
import { Database, runMigrations } from '@wds/database';
import { Messaging, connectWdsTransport } from '@wds/messaging';
import { createLogger, NestPinoLogger, shutdownTelemetry, type Logger } from '@wds/observability';
import type { z } from 'zod';
import { registerInstance } from './discovery';
import { HealthProblems } from './health-problems';
import { PlatformModule } from './platform.module';

export interface ServiceOptions<S extends z.ZodObject<z.ZodRawShape> = typeof CommonEnv> {
  kind: ServiceKind;
  /** The app's root feature module. */
  module: Type<unknown>;
  /** Extended from CommonEnv; parsed once. */
  configSchema?: S;
  /** Applied on start when WDS_MIGRATE_ON_START is true. */
  migrations?: { schema: string; dir: string };
  /** Created or updated on start. */
  streams?: readonly StreamDef[];
  /** A public HTTP app (the gateway); without it a health-only server listens on HEALTH_PORT. */
  http?: {
    port: number;
    host?: string;
    configure?: (app: NestFastifyApplication) => void | Promise<void>;
    /** Fastify server options (limits of the HTTP surface). */
    fastify?: Pick<FastifyServerOptions, 'routerOptions' | 'frameworkErrors'>;
  };
  /** Reported in discovery; semver. */
  version?: string;
  /** For tests; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface RunningService<C = CommonEnv> {
  app: INestApplication;
  /** Base of the probes: `${healthUrl}/live`, `${healthUrl}/ready`. */
  healthUrl: string;
  config: C;
  logger: Logger;
  messaging: Messaging;
  database: Database;
  /** Stops accepting HTTP, lets in-flight work finish, drains NATS, closes PostgreSQL. Idempotent. */
  stop(): Promise<void>;
}

/** Exit code of a start refused for its configuration (sysexits' EX_CONFIG). */
export const EXIT_CONFIG = 78;

@Module({})
class ServiceRootModule {}

/**
 * Starts a service: config → logger → PostgreSQL (+ migrations) → NATS (+ streams) → Nest app on
 * Fastify (lifecycle hooks, then the message handlers of the WDS transport) → discovery registration.
 * Anything failing on the way closes what was opened and throws.
 */
export async function bootstrapService<S extends z.ZodObject<z.ZodRawShape> = typeof CommonEnv>(
  opts: ServiceOptions<S>,
): Promise<RunningService<z.output<S>>> {
  const schema = (opts.configSchema ?? CommonEnv) as S;
  const config = parseEnv(schema, opts.env ?? process.env) as z.output<S> & CommonEnv;
  const logger = createLogger({
    service: opts.kind,
    level: config.LOG_LEVEL,
    instanceId: config.WDS_INSTANCE_ID,
  });
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) {
      await fn().catch((err: unknown) => logger.warn({ err }, 'shutdown step failed'));
    }
    cleanups.length = 0;
  };

  try {
    const database = new Database({ url: config.DATABASE_URL, applicationName: `wds-${opts.kind}`, logger });
    cleanups.push(() => database.close());
    if (opts.migrations && config.WDS_MIGRATE_ON_START) {
      const applied = await runMigrations(database, opts.migrations);
      logger.info({ schema: opts.migrations.schema, applied }, 'migrations up to date');
    }

    const messaging = await Messaging.connect({
      servers: config.NATS_URL,
      name: `wds-${opts.kind}-${config.WDS_INSTANCE_ID}`,
      logger,
    });
    cleanups.push(() => messaging.drain());
    if (opts.streams?.length) await messaging.ensureStreams(opts.streams);

    const problems = new HealthProblems();
    const root: DynamicModule = {
      module: ServiceRootModule,
      imports: [PlatformModule.forRoot({ config, logger, messaging, database, problems }), opts.module],
    };
    const app = await NestFactory.create<NestFastifyApplication>(root, new FastifyAdapter(opts.http?.fastify as ConstructorParameters<typeof FastifyAdapter>[0]), {
      logger: new NestPinoLogger(logger),
      abortOnError: false,
    });
    cleanups.push(() => app.close());
    // Controllers' @MessagePattern / @EventPattern handlers (ADR 0001): served once every lifecycle
    // hook has run and before the service listens and registers for discovery.
    connectWdsTransport(app, { messaging, config, logger });
    if (opts.http?.configure) await opts.http.configure(app);
    await app.init();
    await app.startAllMicroservices();
    const host = opts.http?.host ?? config.HEALTH_HOST;
    await app.listen({ port: opts.http?.port ?? config.HEALTH_PORT, host });
    const port = boundPort(app);
    const advertised = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    const healthUrl = `http://${advertised.includes(':') ? `[${advertised}]` : advertised}:${port}/health`;

    const registration: Service = await registerInstance(messaging, {
      kind: opts.kind,
      instanceId: config.WDS_INSTANCE_ID,
      version: opts.version ?? '0.1.0',
      healthUrl,
      problems: () => problems.current(),
    });
    // Leave discovery first, so nobody routes to an instance that is shutting down.
    cleanups.push(() => registration.stop());
    logger.info({ healthUrl, kind: opts.kind }, 'service started');

    let stopping: Promise<void> | undefined;
    return {
      app,
      healthUrl,
      config,
      logger,
      messaging,
      database,
      stop: () => (stopping ??= cleanup().then(() => logger.info('service stopped'))),
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

function boundPort(app: NestFastifyApplication): number {
  const address = app.getHttpServer().address();
  if (address && typeof address === 'object') return address.port;
  throw new Error('HTTP server is not listening on a TCP port');
}

/**
 * The whole life of a service process: bootstrap, then on SIGTERM/SIGINT a graceful stop within
 * SHUTDOWN_GRACE_MS, telemetry flushed, exit 0. A start failure exits 1 (a ConfigError lists every bad variable).
 */
export function runServiceMain<S extends z.ZodObject<z.ZodRawShape> = typeof CommonEnv>(
  opts: ServiceOptions<S>,
): void {
  void main(opts);
}

async function main<S extends z.ZodObject<z.ZodRawShape>>(opts: ServiceOptions<S>): Promise<void> {
  let running: RunningService<z.output<S>>;
  try {
    running = await bootstrapService(opts);
  } catch (err) {
    const fallback = createLogger({ service: opts.kind });
    if (err instanceof ConfigError) fallback.fatal({ issues: err.issues }, err.message);
    else fallback.fatal({ err }, 'service failed to start');
    await shutdownTelemetry().catch(() => undefined);
    // A bad configuration does not heal by restarting: supervisors (npm start) stop at this code.
    process.exit(err instanceof ConfigError ? EXIT_CONFIG : 1);
  }
  const { logger } = running;
  const grace = (running.config as CommonEnv).SHUTDOWN_GRACE_MS;
  let shuttingDown = false;
  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal, graceMs: grace }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ graceMs: grace }, 'graceful shutdown timed out');
      process.exit(1);
    }, grace);
    timer.unref();
    void running
      .stop()
      .then(() => shutdownTelemetry())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

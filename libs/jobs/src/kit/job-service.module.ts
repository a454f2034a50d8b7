import { Controller, Inject, type ModuleMetadata, type Provider, type Type } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { PageTask } from '@wds/contracts';
import { JetStreamContext, jetStream } from '@wds/messaging';
import type { JobQueries } from '../job-queries';
import { jobQueriesController } from '../job-queries.controller';
import type { JobRuntime } from '../job-runtime';
import { PAGE_RETRY_DELAYS_MS } from '../page-runner';
import type { JobKit } from './job-kit';
import { jobServiceSettings, type JobServiceEnv } from './job-service.env';

/** What a job service's Nest provider exposes to the kit's controllers. */
export interface JobServiceRuntime {
  readonly jobs: JobRuntime;
  readonly queries: JobQueries;
}

/**
 * A controller taking a kit's page tasks from their durable consumer as an `@EventPattern` handler
 * of the WDS transport (ADR 0001): the ack wait and concurrency from the service's `WDS_<P>_*`
 * settings, any number of replicas sharing the consumer. A class per service (Nest's mixin idiom).
 */
export function pageTaskController(kit: JobKit, service: Type<JobServiceRuntime>): Type<unknown> {
  const settings = (config: JobServiceEnv<string>) => jobServiceSettings(config, kit.envPrefix);

  @Controller()
  class PageTaskController {
    constructor(@Inject(service) private readonly svc: JobServiceRuntime) {}

    /** One delivery of a page task; throwing makes JetStream redeliver it (see PageRunner.handle). */
    @EventPattern(
      ...jetStream(
        kit.page.subject,
        (c: JobServiceEnv<string>) => ({ ...kit.page.consumer, ackWaitMs: settings(c).ackWaitMs }),
        {
          concurrency: (c: JobServiceEnv<string>) => settings(c).concurrency,
          retryDelayMs: PAGE_RETRY_DELAYS_MS,
        },
      ),
    )
    page(@Payload() task: PageTask, @Ctx() ctx: JetStreamContext): Promise<void> {
      return this.svc.jobs.runner.handle(task, ctx.getDeliveryCount());
    }
  }
  return PageTaskController;
}

/**
 * The module of a job service: its own controllers and providers, plus what every job service has,
 * answered by `service` (its runtime and job queries): the page-task consumer and the job queries'
 * RPCs (status, document chunks, cancel, errors, queue, active).
 *
 *     @Module(jobServiceModule(CRAWL_JOB_KIT, CrawlService, { controllers: [CrawlController] }))
 */
export function jobServiceModule(
  kit: JobKit,
  service: Type<JobServiceRuntime>,
  own: { imports?: ModuleMetadata['imports']; controllers?: Type<unknown>[]; providers?: Provider[] } = {},
): ModuleMetadata {
  const queries = Symbol(`${kit.service.toUpperCase()}_JOB_QUERIES`);
  return {
    ...(own.imports ? { imports: own.imports } : {}),
    controllers: [
      ...(own.controllers ?? []),
      pageTaskController(kit, service),
      jobQueriesController(kit.rpcs, queries),
    ],
    providers: [
      service,
      { provide: queries, inject: [service], useFactory: (s: JobServiceRuntime) => s.queries },
      ...(own.providers ?? []),
    ],
  };
}

import path from 'node:path';
import {
  STREAMS,
  type ActivityEndpoint,
  type ConsumerDef,
  type JobRpcSet,
  type PageTask,
  type ServiceKind,
  type StreamMessageDef,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import type { ServiceOptions } from '@wds/service-kit';
import type { z } from 'zod';
import type { TxRunner } from '../job-reader';
import { JobRuntime } from '../job-runtime';
import type { JobRow } from '../job.types';
import type { PageJobHooks } from '../page-runner';
import type { JobServiceSettings } from './job-service.env';

/**
 * What makes a page-job service (crawler, batch) itself; everything else is the kit's (ADR 0024):
 * its service kind (also its PostgreSQL schema), the job kind of its page tasks, the activity
 * endpoint its pages are booked under, its environment prefix, its job RPCs and its page tasks.
 */
export interface JobKit<P extends string = string> {
  service: ServiceKind;
  jobKind: PageTask['jobKind'];
  endpoint: ActivityEndpoint;
  /** `WDS_<envPrefix>_*` settings (jobServiceEnv). */
  envPrefix: P;
  /** Status, document chunks, cancel, errors, queue, active (served by jobQueriesController). */
  rpcs: JobRpcSet;
  /** The page tasks' subject and their durable consumer (its ack wait comes from the settings). */
  page: { subject: StreamMessageDef<typeof PageTask>; consumer: ConsumerDef };
}

/**
 * How a job service boots (main.ts and the tests that run it in-process): its schema's migrations
 * from `<appDir>/migrations` (the service's own, then the links to libs/jobs/sql), and the streams
 * every job service uses: page tasks on the work stream, job events for webhooks, dead letters.
 */
export function jobServiceOptions<S extends z.ZodObject<z.ZodRawShape>>(
  kit: JobKit,
  opts: { module: ServiceOptions['module']; configSchema: S; appDir: string; env?: NodeJS.ProcessEnv },
): ServiceOptions<S> {
  return {
    kind: kit.service,
    module: opts.module,
    configSchema: opts.configSchema,
    migrations: { schema: kit.service, dir: path.join(opts.appDir, 'migrations') },
    streams: [STREAMS.WDS_WORK_V1, STREAMS.WDS_EVENTS_V1, STREAMS.WDS_DLQ_V1],
    ...(opts.env ? { env: opts.env } : {}),
  };
}

/**
 * The job machinery of a kit's service from its settings: the page runner takes its tasks through
 * the WDS transport (pageTaskController), the watchdog runs on the settings' timings, `reseed` is
 * what the watchdog does with a job whose start was lost (crawler: kick it off again; batch: fail it).
 */
export function createJobRuntime(
  kit: JobKit,
  deps: { messaging: Messaging; database: TxRunner; logger: Logger },
  opts: {
    settings: JobServiceSettings;
    hooks: PageJobHooks;
    reseed?: (job: JobRow, runtime: JobRuntime) => Promise<void>;
  },
): JobRuntime {
  const { settings } = opts;
  return new JobRuntime(deps.messaging, deps.database, deps.logger, {
    schema: kit.service,
    runner: {
      jobKind: kit.jobKind,
      endpoint: kit.endpoint,
      subject: kit.page.subject,
      consumer: { ...kit.page.consumer, ackWaitMs: settings.ackWaitMs },
      concurrency: settings.concurrency,
      delivery: 'transport',
      hooks: opts.hooks,
    },
    pageEvents: settings.pageEvents,
    watchdog: { ...settings.watchdog, ...(opts.reseed ? { reseed: opts.reseed } : {}) },
  });
}

import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { BATCH_RPC } from '@wds/contracts';
import { Database } from '@wds/database';
import { createJobRuntime, JobQueries, jobServiceSettings, type JobRow, type JobRuntime } from '@wds/jobs';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import { BATCH_JOB_KIT } from '../batch.job-kit';
import type { BatchConfig } from '../config';
import { AgentJobs, type AgentJobDeps } from '../extract/agent-jobs';
import { AgentLog } from '../extract/agent-log';
import { CreateExtractUseCase } from '../extract/create-extract.usecase';
import { AGENT_KIND, EXTRACT_KIND, JobKindHooks } from '../extract/job-kind.hooks';
import { ReadExtractUseCase } from '../extract/read-extract.usecase';
import { BatchPageHooks } from './batch-page.hooks';
import { CreateBatchUseCase } from './create-batch.usecase';

/** Why a job whose creation was cut short is failed rather than re-seeded. */
const creationInterrupted = (kind: string) =>
  `The ${kind === 'batch' ? 'batch' : `${kind} job`} was not fully created (its creation was interrupted before the URLs were recorded); start it again`;

/**
 * The batch service's runtime: the job machinery of the kit (store, events, page runner, watchdog,
 * team wake-ups; `createJobRuntime`, ADR 0024), the use case `BatchController` serves (the create
 * RPC) and the job queries (status, errors, cancel, ...) the kit's controllers serve. Shutdown: the transport stops the page
 * consumer first (its in-flight tasks finish), then this stops the watchdog and hands unused
 * credits back. Extract and agent jobs run on the same page pipeline as job kinds of their own
 * (src/extract, ADR 0023); their RPCs are `ExtractController`'s, answered by the use cases here.
 */
@Injectable()
export class BatchService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly jobs: JobRuntime;
  readonly create: CreateBatchUseCase;
  readonly queries: JobQueries;
  readonly createExtract: CreateExtractUseCase;
  readonly readExtract: ReadExtractUseCase;
  readonly agents: AgentJobs;
  /** What the agent job RPCs work with. */
  readonly agentDeps: AgentJobDeps;

  constructor(
    private readonly messaging: Messaging,
    database: Database,
    @Inject(APP_CONFIG) private readonly config: BatchConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.agents = new AgentJobs(messaging, logger, config);
    const settings = jobServiceSettings(config, BATCH_JOB_KIT.envPrefix);
    const hooks = new JobKindHooks(new BatchPageHooks(), this.agents);
    this.jobs = createJobRuntime(
      BATCH_JOB_KIT,
      { messaging, database, logger },
      {
        settings,
        hooks,
        // The gateway got no answer for such a batch, so nobody waits for it: fail it, charge nothing.
        reseed: (job, runtime) => this.failUnseeded(job, runtime),
      },
    );
    const { store, events, dispatcher } = this.jobs;
    this.create = new CreateBatchUseCase(store, dispatcher, events, {
      retentionMs: settings.retentionMs,
      zdrRetentionMs: settings.zdrRetentionMs,
    });
    this.queries = new JobQueries(messaging, store, events, { kind: 'batch', rpcs: BATCH_RPC });
    const { retentionMs } = settings;
    this.createExtract = new CreateExtractUseCase(messaging, store, dispatcher, events, retentionMs);
    const agentLog = new AgentLog(database, BATCH_JOB_KIT.service);
    this.readExtract = new ReadExtractUseCase(store, agentLog);
    this.agentDeps = { store, dispatcher, events, read: this.readExtract, log: agentLog, retentionMs };
    this.agents.attach(store, events, agentLog);
    hooks.attach(this.readExtract);
  }

  async onApplicationBootstrap(): Promise<void> {
    const { store, events, dispatcher } = this.jobs;
    // Team wake-ups of the other job kinds reach this service too (their pages are batch tasks).
    for (const kind of [EXTRACT_KIND, AGENT_KIND])
      this.jobs.teamWake.serve(kind, { store, dispatcher, events });
    await this.jobs.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.jobs.stop();
    this.logger.info('batch workers stopped');
  }

  private async failUnseeded(job: JobRow, runtime: JobRuntime): Promise<void> {
    if (await runtime.store.end(job.id, 'failed', creationInterrupted(job.kind))) {
      this.logger.warn({ jobId: job.id }, 'batch failed: creation interrupted');
      await runtime.events.lifecycle(job, 'failed');
    }
  }
}

import {
  CREDIT_PRICES,
  type ActivityEndpoint,
  type Document,
  type PageTask,
  type ScrapeRequestInput,
} from '@wds/contracts';
import {
  EVENT_DOCUMENT_MAX_BYTES,
  type JobRow,
  type LifecycleEventBody,
  type LifecycleKind,
  type PageCost,
  type PageJobHooks,
  type PageWork,
} from '@wds/jobs';
import { extractOptionsOf, extractPageRecord } from './extract-options';
import type { ReadExtractUseCase } from './read-extract.usecase';

/** Job kinds the batch service runs besides batch scrapes. */
export const EXTRACT_KIND = 'extract';
export const AGENT_KIND = 'agent';
/** The agent job's single task (its page key). */
export const AGENT_TASK_KEY = 'agent';

/** Credits of an extract page: one per 15 tokens of its extraction (api-v2), at least one for the scrape. */
export function extractPageCredits(cost: PageCost): number {
  return Math.max(1, Math.ceil((cost.tokensUsed ?? 0) / CREDIT_PRICES.tokensPerCredit));
}

/** Something that runs an agent job's task. */
export interface AgentWorkFactory {
  work(job: JobRow, task: PageTask): PageWork;
}

/**
 * The batch service's page hooks for each job kind it runs on one page pipeline: batch pages as
 * they are, extract pages with the `json` format (stored as their answer and tokens, billed by
 * tokens under `extract`), and the agent job's single task, which runs the browser agent.
 */
export class JobKindHooks implements PageJobHooks {
  private read: ReadExtractUseCase | undefined;

  constructor(
    private readonly batch: PageJobHooks,
    private readonly agents: AgentWorkFactory,
  ) {}

  /** How the jobs' state is read for their events (the runtime's store, built after these hooks). */
  attach(read: ReadExtractUseCase): void {
    this.read = read;
  }

  /**
   * Extract and agent events say how the job ended as GET /v2/extract/{id} and GET /v2/agent/{id}
   * tell it: `completed` carries the answer (one element of `data`; an answer larger than an
   * event says where to read it instead), and a job that ended without one (every page failed or
   * gave no valid answer, the agent stopped short) sends `failed` with the reason.
   */
  async lifecycleEvent(job: JobRow, kind: LifecycleKind): Promise<LifecycleEventBody | undefined> {
    if (job.kind !== EXTRACT_KIND && job.kind !== AGENT_KIND) return undefined;
    const noun = job.kind === AGENT_KIND ? 'agent' : 'extract';
    if (kind === 'started') return undefined;
    if (kind === 'cancelled') {
      return { kind, success: false, data: [], error: `The ${noun} job was cancelled` };
    }
    if (!this.read) throw new Error('job kind hooks used before the job reader was attached');
    const reply = await this.read.execute({ teamId: job.teamId, jobId: job.id });
    if (kind === 'failed' || reply.status === 'failed' || reply.status === 'cancelled') {
      return { kind: 'failed', success: false, data: [], error: reply.error ?? `The ${noun} job failed` };
    }
    if (reply.status !== 'completed') return undefined;
    // A chat-mode agent's answer is its reply text.
    const answer = reply.data ?? reply.message ?? null;
    if (Buffer.byteLength(JSON.stringify(answer)) > EVENT_DOCUMENT_MAX_BYTES) {
      return {
        kind,
        success: true,
        data: [],
        warning: `The answer is too large for an event; read it from GET /v2/${noun}/${job.id}`,
      };
    }
    return { kind, success: true, data: [answer], ...(reply.warning ? { warning: reply.warning } : {}) };
  }

  scrapeRequest(job: JobRow, task: PageTask): ScrapeRequestInput {
    if (job.kind === EXTRACT_KIND) {
      return { ...extractOptionsOf(job).scrapeOptions, url: task.url } as ScrapeRequestInput;
    }
    return this.batch.scrapeRequest(job, task);
  }

  afterScrape(job: JobRow, task: PageTask, document: Document, reply: PageCost) {
    if (job.kind === EXTRACT_KIND) {
      return { document: extractPageRecord(document, reply.tokensUsed ?? 0) as unknown as Document };
    }
    return this.batch.afterScrape(job, task, document, reply);
  }

  endpoint(job: JobRow): ActivityEndpoint | undefined {
    if (job.kind === EXTRACT_KIND) return 'extract';
    if (job.kind === AGENT_KIND) return 'agent';
    return undefined;
  }

  charge(job: JobRow, cost: PageCost): number {
    return job.kind === EXTRACT_KIND ? extractPageCredits(cost) : cost.creditsUsed;
  }

  work(job: JobRow, task: PageTask): PageWork | undefined {
    return job.kind === AGENT_KIND ? this.agents.work(job, task) : undefined;
  }
}

import {
  CREDIT_PRICES,
  type ActivityEndpoint,
  type Document,
  type PageTask,
  type ScrapeRequestInput,
} from '@wds/contracts';
import type { JobRow, PageCost, PageJobHooks, PageWork } from '@wds/jobs';
import { extractOptionsOf, extractPageRecord } from './extract-options';

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
  constructor(
    private readonly batch: PageJobHooks,
    private readonly agents: AgentWorkFactory,
  ) {}

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

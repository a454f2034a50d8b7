export type JobStatus = 'scraping' | 'completed' | 'failed' | 'cancelled';

export interface NewJob {
  id: string;
  teamId: string;
  /** `crawl` or `batch`: selects subjects, event names and the activity endpoint. */
  kind: string;
  url: string;
  /** The validated public request; page options are read from it by the service's hooks. */
  options: Record<string, unknown>;
  pageLimit: number;
  concurrency: number;
  delayMs: number;
  webhook?: Record<string, unknown>;
  zeroDataRetention: boolean;
  retentionMs: number;
  /**
   * The team's limit of pages in flight across all its jobs (crawl and batch together); the
   * latest job creation sets it for the team. Absent: the team keeps its recorded limit.
   */
  teamConcurrency?: number;
}

export interface JobRow {
  id: string;
  teamId: string;
  kind: string;
  status: JobStatus;
  url: string;
  options: Record<string, unknown>;
  pageLimit: number;
  concurrency: number;
  delayMs: number;
  webhook?: Record<string, unknown>;
  zeroDataRetention: boolean;
  discovered: number;
  succeeded: number;
  failed: number;
  inflight: number;
  creditsUsed: number;
  seeded: boolean;
  robotsTxt?: string;
  error?: string;
  createdAt: Date;
  /** Last time a page finished or pages were added. */
  progressedAt: Date;
  expiresAt: Date;
  /** Times the job was reopened after it completed (pages appended); each round has its own lifecycle events. */
  reopened: number;
}

/** A URL to add to a job; `urlKey` is its de-duplication key (the job visits each key once). */
export interface PageCandidate {
  urlKey: string;
  url: string;
  depth: number;
}

/** A page claimed for dispatch: publish it as a task. */
export interface ClaimedPage extends PageCandidate {
  jobId: string;
  teamId: string;
}

export type PageResult =
  | { kind: 'done'; documentJson: string; credits: number }
  | {
      kind: 'failed';
      error: string;
      code?: string;
      credits: number;
      /** What a failed job work unit still keeps (an agent run's step log and tokens); not a document of the job's results. */
      documentJson?: string;
    };

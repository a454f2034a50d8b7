import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  ErrorCode,
  HttpUrl,
  ScrapeRequest,
  scrapeEstimate,
  ServiceError,
  type ActivityEndpoint,
  type Document,
  type ConsumerDef,
  PageTask,
  type ScrapeRequestInput,
  type ScrapeRunReply,
  type ScrapeRunRequestInput,
  type StreamMessageDef,
} from '@wds/contracts';
import { CreditBlocks, type CreditHold } from '@wds/credits';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import type { JobEvents, LifecycleEventBody, LifecycleKind } from './job-events';
import type { JobStore } from './job-store';
import type { JobRow, PageCandidate, PageResult } from './job.types';
import { PageDispatcher } from './page-dispatcher';
import { PageFinisher } from './page-finisher';
import { creditsOwedByFailure, ScrapeClient } from './scrape-client';

/** Errors that say nothing about the page: retry the task (the scraper or billing is away). */
const TRANSIENT: ReadonlySet<string> = new Set([ErrorCode.SERVICE_UNAVAILABLE, ErrorCode.INTERNAL]);
const JOB_CACHE_MS = 1000;
/** How often a page whose work is running is marked as freshly dispatched (below any redispatch delay). */
const WORK_TOUCH_MS = 2000;
/**
 * Redelivery delays of a task that failed transiently, by delivery: a scraper, billing or
 * PostgreSQL that was killed is back within seconds, and its pages resume within 2 s of that (they
 * waited 3 s a time before); the consumer's 20 deliveries stretch over ~35 s.
 */
export const PAGE_RETRY_DELAYS_MS: readonly number[] = [500, 1000, 1000, 2000];

/** What a service adds to the generic page pipeline. */
/** What a job makes of a scraped page: the document to store, and the pages it leads to. */
export interface AfterScrape {
  document: Document;
  discovered?: PageCandidate[];
  blocked?: string[];
}

export interface PageJobHooks {
  /**
   * The public scrape request for one page of the job. It may differ between pages of a job only in
   * `url`: the runner validates a job's options once and reuses them (see PageRunner.options).
   */
  scrapeRequest(job: JobRow, task: PageTask): ScrapeRequestInput;
  /** What the scraper is told about this page besides its options (default: nothing). */
  scrapeContext?(job: JobRow, task: PageTask): PageScrapeContext;
  /** After a successful scrape: the document to store, and pages to add (crawl links). */
  afterScrape(
    job: JobRow,
    task: PageTask,
    document: Document,
    reply: PageCost,
  ): AfterScrape | Promise<AfterScrape>;
  /** The activity endpoint the job's credits and tokens are booked under (default: the runner's). */
  endpoint?(job: JobRow): ActivityEndpoint | undefined;
  /** Credits a scraped page costs (default: what the scraper charged). */
  charge?(job: JobRow, reply: PageCost): number;
  /**
   * Work that replaces the scrape for this job's task (an agent job's single task), or undefined
   * to scrape. It gets the same credit hold, charge-once key, retries and finish as a page.
   */
  work?(job: JobRow, task: PageTask): PageWork | undefined;
  /**
   * A job that is not seeded yet has no page left queued or in flight: its service adds the rest
   * of its start pages now (a crawl's change-tracking re-check) and seeds it. Called after the page
   * finish that drained it, and again on a redelivery of a finished page of such a job (the
   * process may have died before the call); the service's handling must be idempotent. The
   * watchdog's `reseed` of an idle unseeded job is the last resort.
   */
  drained?(job: JobRow): Promise<void>;
  /**
   * The body of a lifecycle event of a job kind that answers as a whole (extract, agent): its
   * answer with `completed`, or why it has none (default: `data: []`).
   */
  lifecycleEvent?(job: JobRow, kind: LifecycleKind): Promise<LifecycleEventBody | undefined>;
}

/** Per-page fields of the scrape request that are not scrape options. */
export type PageScrapeContext = Pick<ScrapeRunRequestInput, 'hiddenInCrawl'>;

/** What a scrape or a job's own work cost. */
export interface PageCost {
  creditsUsed: number;
  tokensUsed?: number;
}

/** A job's own work for one task (see PageJobHooks.work). */
export interface PageWork {
  /** Credits held before it runs (the team must have them). */
  estimate: number;
  /**
   * Runs the work: the document to store and its cost. Throw a ServiceError whose code is
   * SERVICE_UNAVAILABLE or INTERNAL to retry the task; any other ends the page as failed (with
   * `details.creditsUsed` charged when the work cost something before failing). A result with
   * `failure` ends the page as failed too, charging `creditsUsed` and keeping `document` on the
   * failed page (what the work did before it failed: an agent run's steps and tokens).
   */
  run(): Promise<PageWorkResult>;
}

/** What a job's own work ended with (see PageWork.run). */
export interface PageWorkResult {
  document: Document;
  creditsUsed: number;
  failure?: { error: string; code: string };
}

export interface PageRunnerOptions {
  jobKind: PageTask['jobKind'];
  /** Activity endpoint the credits are booked under (`crawl`, `batch_scrape`). */
  endpoint: ActivityEndpoint;
  subject: StreamMessageDef<typeof PageTask>;
  consumer: ConsumerDef;
  /** Tasks handled at once by this process. */
  concurrency: number;
  /**
   * Who takes the page tasks: `consume` (default), `start()` runs the durable consumer; `transport`,
   * the service binds it as an `@EventPattern` handler of the WDS transport (ADR 0001) that calls
   * `handle()` with `concurrency` and `PAGE_RETRY_DELAYS_MS`, and `start()` consumes nothing.
   */
  delivery?: 'consume' | 'transport';
  hooks: PageJobHooks;
  /** Resolves after `ms`; injectable so tests need not wait for `delay`. */
  sleep?: (ms: number) => Promise<void>;
  /** Names this process in billing's journal of credit blocks (default `<kind>-pages/<host>-<pid>`). */
  creditHolder?: string;
}

/**
 * Consumes a service's page tasks: for each page, hold credits from the team's credit block and
 * record the cost keyed by job and URL (so a redelivered page is charged once), scrape it through the scraper, store the
 * document and the pages it leads to in one transaction, publish the next tasks and the events.
 */
export class PageRunner {
  /** Page credits come from blocks of the team's credits held here, not two billing calls per page. */
  private readonly credits: CreditBlocks;
  private readonly scraper: ScrapeClient;
  private readonly dispatcher: PageDispatcher;
  /** Pages of a job finish in natural batches (one finish_pages() call per job at a time). */
  private readonly finisher: PageFinisher;
  private readonly jobCache = new Map<string, { job: JobRow; at: number }>();
  private readonly jobReads = new Map<string, Promise<JobRow | undefined>>();
  /** Each job's validated scrape options (its first page's), by job id. */
  private readonly optionsCache = new Map<string, ScrapeRequest>();
  private running?: { stop(): Promise<void> };

  constructor(
    private readonly messaging: Messaging,
    private readonly store: JobStore,
    /** The service's job events (its page-event setting), shared with its watchdog. */
    private readonly events: JobEvents,
    private readonly logger: Logger,
    private readonly opts: PageRunnerOptions,
  ) {
    this.credits = new CreditBlocks(messaging, logger, {
      holder: opts.creditHolder ?? `${opts.jobKind}-pages/${hostname()}-${process.pid}`,
    });
    this.scraper = new ScrapeClient(messaging);
    this.dispatcher = new PageDispatcher(messaging, opts.subject, opts.jobKind);
    this.finisher = new PageFinisher(store);
  }

  async start(): Promise<void> {
    if (this.opts.delivery === 'transport') return;
    this.running = await this.messaging.consume(
      this.opts.subject,
      this.opts.consumer,
      (task, ctx) => this.handle(task, ctx.deliveryCount),
      { concurrency: this.opts.concurrency, retryDelayMs: PAGE_RETRY_DELAYS_MS },
    );
  }

  async stop(): Promise<void> {
    await this.running?.stop();
    // After the last page: report its usage and hand unused credits back.
    await this.credits.stop();
  }

  /** One delivery of a page task; throwing makes JetStream redeliver it. */
  async handle(task: PageTask, deliveryCount: number): Promise<void> {
    const job = await this.job(task.jobId);
    if (!job) return;
    const urlKey = task.urlKey ?? task.url;
    // A redelivered or republished task of a finished page: nothing to scrape, nothing to charge,
    // but the events that follow the page's commit may have died with the process that committed
    // it, so they are sent again (same webhookIds: JetStream and the webhook outbox drop repeats).
    // A first delivery of a first publish needs no look: pages are claimed from `queued` once, and
    // JetStream drops a repeated publish (same msgId), so this is the page's only task. (Each check
    // is a PostgreSQL round trip per page, a tenth of the crawler's CPU per page.)
    const maybeFinished = deliveryCount > 1 || task.republished === true;
    if (job.status !== 'scraping') {
      if (maybeFinished && job.status === 'completed') await this.resendEvents(job, urlKey);
      return;
    }
    if (maybeFinished && (await this.resendEvents(job, urlKey))) {
      if (!job.seeded) await this.checkDrained(job.id);
      return;
    }
    if (job.delayMs > 0) await (this.opts.sleep ?? sleep)(job.delayMs);

    // Transient failures (no scraper or billing answering) end the page only on the last delivery
    // of a task the watchdog republished. A first task out of deliveries is dead-lettered and its
    // page stays dispatched until the watchdog republishes it (redispatch delay), so a scraper or
    // billing outage shorter than that delay costs no page.
    const lastAttempt = deliveryCount >= this.opts.consumer.maxDeliver && task.republished === true;
    const holdKey = `${this.opts.jobKind}:${job.id}:${createHash('sha1').update(urlKey).digest('base64url')}`;
    const work = this.opts.hooks.work?.(job, task);
    if (work) {
      await this.runWork(job, task, urlKey, holdKey, work, lastAttempt);
      return;
    }
    const parsed = this.options(job, task);
    if (!parsed.success) {
      await this.finish(job, task, urlKey, {
        ok: false,
        error: parsed.error.message,
        code: 'BAD_REQUEST',
        credits: 0,
      });
      return;
    }
    const options = parsed.data;
    const hold = await this.holdOrEnd(job, task, urlKey, scrapeEstimate(options), lastAttempt);
    if (!hold) return;

    let reply: ScrapeRunReply;
    let document: Document;
    try {
      reply = await this.scraper.run({
        teamId: job.teamId,
        requestId: holdKey,
        jobId: randomUUID(),
        options,
        zeroDataRetention: job.zeroDataRetention,
        keepUntil: job.expiresAt.getTime(),
        usage: { endpoint: this.endpointOf(job), apiKey: null },
        ...this.opts.hooks.scrapeContext?.(job, task),
      });
      document = await this.scraper.document(job.teamId, reply);
    } catch (err) {
      await this.failed(err, job, task, urlKey, hold, holdKey, lastAttempt);
      return;
    }
    const cost: PageCost = {
      creditsUsed: reply.creditsUsed,
      ...(reply.tokensUsed !== undefined ? { tokensUsed: reply.tokensUsed } : {}),
    };
    const owed = this.opts.hooks.charge?.(job, cost) ?? reply.creditsUsed;
    const charged = await this.settle(hold, holdKey, owed, job);
    const after = await this.opts.hooks.afterScrape(job, task, document, { ...cost, creditsUsed: charged });
    await this.finish(job, task, urlKey, { ok: true, document: after.document, credits: charged }, after);
  }

  /** A job's own work in place of a scrape: same hold, charge-once key, retries and finish. */
  private async runWork(
    job: JobRow,
    task: PageTask,
    urlKey: string,
    holdKey: string,
    work: PageWork,
    lastAttempt: boolean,
  ): Promise<void> {
    const hold = await this.holdOrEnd(job, task, urlKey, Math.max(1, work.estimate), lastAttempt);
    if (!hold) return;
    let result: PageWorkResult;
    const stopTouching = this.keepDispatched(job.id, urlKey);
    try {
      result = await work.run();
    } catch (err) {
      await this.failed(err, job, task, urlKey, hold, holdKey, lastAttempt);
      return;
    } finally {
      stopTouching();
    }
    const charged = await this.settle(hold, holdKey, result.creditsUsed, job);
    const r = result.failure
      ? { ok: false as const, ...result.failure, document: result.document, credits: charged }
      : { ok: true as const, document: result.document, credits: charged };
    await this.finish(job, task, urlKey, r);
  }

  /**
   * A scrape or a job's own work that threw: a transient failure before the last attempt gives the
   * hold back and rethrows (the task is redelivered); otherwise the page ends failed, charged what
   * the failure owes (the scraper's creditsUsed on a failed scrape that cost something), else free.
   */
  private async failed(
    err: unknown,
    job: JobRow,
    task: PageTask,
    urlKey: string,
    hold: CreditHold,
    holdKey: string,
    lastAttempt: boolean,
  ): Promise<void> {
    const code = codeOf(err);
    if (TRANSIENT.has(code) && !lastAttempt) {
      this.credits.release(hold);
      throw err;
    }
    const owed = creditsOwedByFailure(err);
    const charged = owed > 0 ? await this.settle(hold, holdKey, owed, job) : (this.credits.release(hold), 0);
    await this.finish(job, task, urlKey, { ok: false, error: describe(err), code, credits: charged });
  }

  /**
   * While a job's own work runs, its page is kept freshly dispatched (every WORK_TOUCH_MS), so the
   * watchdog's redispatch does not start the same work a second time beside it; a dead worker stops
   * touching and its page is redispatched as usual.
   */
  private keepDispatched(jobId: string, urlKey: string): () => void {
    const timer = setInterval(() => {
      this.store
        .touchDispatched(jobId, urlKey)
        .catch((err: unknown) => this.logger.warn({ err, jobId }, 'could not mark the work in progress'));
    }, WORK_TOUCH_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  private endpointOf(job: JobRow): ActivityEndpoint {
    return this.opts.hooks.endpoint?.(job) ?? this.opts.endpoint;
  }

  /**
   * Holds a page's credit estimate. When it cannot: a team out of credits fails the job; any other
   * failure is retried by redelivery, and on the last attempt ends the page with that error.
   * Undefined when the page is dealt with and nothing more must run.
   */
  private async holdOrEnd(
    job: JobRow,
    task: PageTask,
    urlKey: string,
    estimate: number,
    lastAttempt: boolean,
  ): Promise<CreditHold | undefined> {
    try {
      return await this.credits.hold(job.teamId, estimate);
    } catch (err) {
      if (err instanceof ServiceError && err.code === ErrorCode.INSUFFICIENT_CREDITS) {
        await this.failJob(job, 'Insufficient credits to continue the job');
        return undefined;
      }
      if (!lastAttempt) throw err;
      await this.finish(job, task, urlKey, {
        ok: false,
        error: describe(err),
        code: codeOf(err),
        credits: 0,
      });
      return undefined;
    }
  }

  private async finish(
    job: JobRow,
    task: PageTask,
    urlKey: string,
    r:
      | { ok: true; document: Document; credits: number }
      | { ok: false; error: string; code: string; credits: number; document?: Document },
    after: { discovered?: PageCandidate[]; blocked?: string[] } = {},
  ): Promise<void> {
    const documentJson = r.document ? JSON.stringify(r.document) : '';
    const result: PageResult = r.ok
      ? { kind: 'done', documentJson, credits: r.credits }
      : {
          kind: 'failed',
          error: r.error,
          code: r.code,
          credits: r.credits,
          ...(r.document ? { documentJson } : {}),
        };
    const outcome = await this.finisher.finish(job.id, {
      urlKey,
      result,
      discovered: after.discovered,
      blocked: after.blocked,
    });
    if (!outcome.applied) {
      // Its job ended while it ran (cancel, out of credits): its cost is on record at billing, so it
      // is counted in the job too.
      if (await this.store.finishLate(job.id, urlKey, result)) {
        this.jobCache.delete(job.id);
        this.logger.info({ jobId: job.id, credits: r.credits }, 'page finished after its job ended');
      }
      return;
    }
    if (!r.ok) this.logger.info({ jobId: job.id, code: r.code, depth: task.depth }, 'page failed');
    await this.dispatcher.publish(outcome.dispatch);
    await this.events.page(job, {
      urlKey,
      success: r.ok,
      ...(r.ok ? { document: r.document, documentBytes: documentJson.length } : { error: r.error }),
    });
    if (outcome.finished) await this.events.lifecycle(outcome.job ?? job, 'completed');
    else if (!job.seeded && outcome.dispatch.length === 0) await this.checkDrained(job.id);
  }

  /**
   * Tells the hooks when an unseeded job has nothing queued or in flight (see PageJobHooks.drained).
   * Only jobs whose seeding waits for their pages (a crawl that re-checks its change-tracking
   * history) are unseeded while pages run, so other jobs never pay this read.
   */
  private async checkDrained(jobId: string): Promise<void> {
    if (!this.opts.hooks.drained) return;
    const job = await this.store.get(jobId);
    if (!job || job.status !== 'scraping' || job.seeded) return;
    if (job.inflight > 0 || job.succeeded + job.failed < job.discovered) return;
    await this.opts.hooks.drained(job);
  }

  /**
   * Sends the page's event again when the page is finished (true), and the job's `completed` when
   * the job is. False while the page is still pending.
   */
  private async resendEvents(job: JobRow, urlKey: string): Promise<boolean> {
    const page = await this.store.finishedPage(job.id, urlKey);
    if (!page) return false;
    if (page.status === 'done' || page.status === 'failed') {
      let document: Document | undefined;
      try {
        document = page.document ? (JSON.parse(page.document) as Document) : undefined;
      } catch {
        document = undefined;
      }
      await this.events.page(job, {
        urlKey,
        success: page.status === 'done',
        ...(document && page.status === 'done'
          ? { document, documentBytes: page.docBytes ?? page.document?.length ?? 0 }
          : {}),
        ...(page.status === 'failed' && page.error ? { error: page.error } : {}),
      });
    }
    // The row may be a cached copy from before the job completed.
    const now = job.status === 'scraping' ? await this.store.get(job.id) : job;
    if (now?.status === 'completed') await this.events.lifecycle(now, 'completed');
    return true;
  }

  private async failJob(job: JobRow, reason: string): Promise<void> {
    if (await this.store.end(job.id, 'failed', reason)) {
      this.jobCache.delete(job.id);
      this.logger.warn({ jobId: job.id, reason }, 'job failed');
      await this.events.lifecycle(job, 'failed');
    }
  }

  /**
   * The page's validated scrape request. Validating a job's whole options on every page cost the
   * crawler ~5% of its CPU, so they are validated once per job and only the page's URL after that.
   */
  private options(
    job: JobRow,
    task: PageTask,
  ): { success: true; data: ScrapeRequest } | { success: false; error: { message: string } } {
    const known = this.optionsCache.get(job.id);
    if (known) {
      const url = HttpUrl.safeParse(task.url);
      return url.success ? { success: true, data: { ...known, url: url.data } } : url;
    }
    const parsed = ScrapeRequest.safeParse(this.opts.hooks.scrapeRequest(job, task));
    if (parsed.success) {
      if (this.optionsCache.size >= 1000) this.optionsCache.clear();
      this.optionsCache.set(job.id, parsed.data);
    }
    return parsed;
  }

  private async job(jobId: string): Promise<JobRow | undefined> {
    const hit = this.jobCache.get(jobId);
    // Only a running job is served from the cache: an ended batch can be reopened by an append.
    if (hit && hit.job.status === 'scraping' && Date.now() - hit.at < JOB_CACHE_MS) return hit.job;
    // One read per job at a time: the pages that arrive while it runs share it.
    let reading = this.jobReads.get(jobId);
    if (!reading) {
      reading = this.store.get(jobId).finally(() => this.jobReads.delete(jobId));
      this.jobReads.set(jobId, reading);
    }
    const job = await reading;
    if (this.jobCache.size > 1000) this.jobCache.clear();
    if (job) this.jobCache.set(jobId, { job, at: Date.now() });
    else this.jobCache.delete(jobId);
    return job;
  }

  /**
   * Puts the page's cost on record at billing before the page is marked done: a crash after this
   * redelivers the page, whose usage key billing has already seen, so it is charged exactly once.
   */
  private async settle(hold: CreditHold, key: string, actual: number, job: JobRow): Promise<number> {
    await this.credits.settleRecorded(hold, actual, { key, endpoint: this.endpointOf(job) });
    return actual;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function codeOf(err: unknown): string {
  return err instanceof ServiceError ? err.code : ErrorCode.INTERNAL;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BATCH_CONSUMERS,
  BATCH_WORK,
  CRAWL_CONSUMERS,
  CRAWL_WORK,
  EVENTS,
  ErrorCode,
  RPC,
  SCRAPE_RPC,
  STREAMS,
  ServiceError,
  type JobEvent,
} from '@wds/contracts';
import { Database, runMigrations } from '@wds/database';
import { startNats, type RunningServer } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { createTestDatabase } from '@wds/testing';
import {
  JobEvents,
  JobStore,
  JobWatchdog,
  PageDispatcher,
  PageRunner,
  TeamWake,
  type NewJob,
} from '../../src';

export const SQL_DIR = path.resolve(__dirname, '..', '..', 'sql');
/** The shared job DDL in the order the services' migrations apply it. */
export const MIGRATIONS = [
  'job-tables.sql',
  'team-slots.sql',
  'job-reopen.sql',
  'page-finish.sql',
  'page-finish-plans.sql',
  'page-finish-batch.sql',
];

export const logger = createLogger({ service: 'jobs-test', level: 'fatal' });

/** A page of the fake site: which job it belongs to and when it was fetched. */
export interface Fetch {
  job: string;
  url: string;
  start: number;
  end?: number;
}

/**
 * The scraper and billing as seen by the page runners: credits always granted, every page a slow
 * fetch recorded here (start, end, pages in flight at once per team) so tests can see what the
 * team limit let through. The page's job label is the first path segment of its URL.
 */
export class FakeSite {
  readonly fetches: Fetch[] = [];
  readonly maxInflight = new Map<string, number>();
  private readonly inflight = new Map<string, number>();
  pageMs = 150;

  inflightOf(teamId: string): number {
    return this.inflight.get(teamId) ?? 0;
  }

  async fetch(teamId: string, url: string): Promise<void> {
    const f: Fetch = { job: new URL(url).pathname.split('/')[1], url, start: Date.now() };
    this.fetches.push(f);
    const now = (this.inflight.get(teamId) ?? 0) + 1;
    this.inflight.set(teamId, now);
    this.maxInflight.set(teamId, Math.max(this.maxInflight.get(teamId) ?? 0, now));
    await new Promise((r) => setTimeout(r, this.pageMs));
    this.inflight.set(teamId, (this.inflight.get(teamId) ?? 1) - 1);
    f.end = Date.now();
  }
}

/** One job service (crawler-like or batch-like): its schema, store, runner and wake listener. */
export interface JobService {
  kind: 'crawl' | 'batch';
  store: JobStore;
  dispatcher: PageDispatcher;
  events: JobEvents;
  /** Creates a seeded job with `pages` pages labelled `label` and publishes its first tasks. */
  startJob(label: string, teamId: string, pages: number, extra?: Partial<NewJob>): Promise<string>;
  startWatchdog(intervalMs: number): void;
  stop(): Promise<void>;
}

export interface TwoServices {
  site: FakeSite;
  db: Database;
  events: JobEvent[];
  crawl: JobService;
  batch: JobService;
  /** A store on a third schema whose jobs no runner serves: a service that died. */
  deadStore(leaseMs: number): Promise<{ store: JobStore; dispatcher: PageDispatcher }>;
  waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Billing that grants every credit block asked for and accepts usage; teams in `broke` are refused
 * with INSUFFICIENT_CREDITS.
 */
export function serveFakeBilling(backend: Messaging, broke: ReadonlySet<string> = new Set()): void {
  backend.serve(RPC.creditsBlockTake, async (req) => {
    if (broke.has(req.teamId)) throw new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'no credits left');
    return {
      reservationId: randomUUID(),
      granted: req.amount,
      balance: 1_000_000,
      expiresAt: Date.now() + 120_000,
    };
  });
  backend.serve(RPC.creditsUsageReport, async (req) => ({
    recorded: 0,
    used: 0,
    open: !req.close,
    expiresAt: Date.now() + 120_000,
  }));
}

/**
 * A private nats-server and a fresh database with two job schemas migrated from libs/jobs/sql, a
 * crawl-kind and a batch-kind service each with its own connection, PageRunner and TeamWake (as
 * the crawler and batch processes have), the fake scraper and billing, and the job events.
 */
export async function startTwoServices(): Promise<TwoServices> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-jobs-test-'));
  const nats: RunningServer = await startNats({ dataDir: path.join(dir, 'nats') });
  const testDb = await createTestDatabase('jobs');
  const db = new Database({ url: testDb.url, max: 20 });
  const migrations = path.join(dir, 'migrations');
  fs.mkdirSync(migrations);
  MIGRATIONS.forEach((f, i) =>
    fs.symlinkSync(path.join(SQL_DIR, f), path.join(migrations, `000${i + 1}_${f.replace('-', '_')}`)),
  );
  for (const schema of ['svc_crawl', 'svc_batch', 'svc_dead'])
    await runMigrations(db, { schema, dir: migrations });

  const site = new FakeSite();
  const backend = await Messaging.connect({ servers: nats.url, name: 'fake-backend', logger });
  await backend.ensureStreams([STREAMS.WDS_WORK_V1, STREAMS.WDS_EVENTS_V1, STREAMS.WDS_DLQ_V1]);
  serveFakeBilling(backend);
  backend.serve(SCRAPE_RPC.run, async (req) => {
    await site.fetch(req.teamId, req.options.url);
    return {
      document: {
        markdown: `# ${req.options.url}`,
        metadata: { sourceURL: req.options.url },
      },
      creditsUsed: 1,
    };
  });
  const events: JobEvent[] = [];
  const eventConsumer = await backend.consume(
    EVENTS.job,
    {
      stream: STREAMS.WDS_EVENTS_V1.name,
      durable: 'jobs-test-events',
      filterSubject: EVENTS.job.subject,
      ackWaitMs: 30_000,
      maxDeliver: 1,
    },
    async (event) => {
      events.push(event);
    },
  );

  const service = async (kind: 'crawl' | 'batch'): Promise<JobService> => {
    const messaging = await Messaging.connect({ servers: nats.url, name: `svc-${kind}`, logger });
    const wake = new TeamWake(messaging, logger);
    const store = new JobStore(db, `svc_${kind}`, { teamWaker: wake });
    const jobEvents = new JobEvents(messaging, kind);
    const subject = kind === 'crawl' ? CRAWL_WORK.page : BATCH_WORK.page;
    const dispatcher = new PageDispatcher(messaging, subject, kind);
    const runner = new PageRunner(messaging, store, jobEvents, logger, {
      jobKind: kind,
      endpoint: kind === 'crawl' ? 'crawl' : 'batch_scrape',
      subject,
      consumer: kind === 'crawl' ? CRAWL_CONSUMERS.page : BATCH_CONSUMERS.page,
      concurrency: 16,
      hooks: {
        scrapeRequest: (_job, task) => ({ url: task.url, formats: ['markdown'] }),
        afterScrape: (_job, _task, document) => ({ document }),
      },
    });
    wake.serve(kind, { store, dispatcher, events: jobEvents });
    await runner.start();
    let watchdog: JobWatchdog | undefined;
    return {
      kind,
      store,
      dispatcher,
      events: jobEvents,
      startJob: async (label, teamId, pages, extra = {}) => {
        const id = randomUUID();
        await store.create({
          id,
          teamId,
          kind,
          url: `http://pages.test/${label}/0`,
          options: {},
          pageLimit: 1000,
          concurrency: 2,
          delayMs: 0,
          zeroDataRetention: false,
          retentionMs: 3_600_000,
          teamConcurrency: 2,
          webhook: { url: 'http://hooks.test/', events: ['started', 'page', 'completed', 'failed'] },
          ...extra,
        });
        const urls = Array.from({ length: pages }, (_, i) => `http://pages.test/${label}/${i}`);
        const outcome = await store.addPages(
          id,
          urls.map((url) => ({ urlKey: url, url, depth: 0 })),
          { seeded: true },
        );
        await dispatcher.publish(outcome.dispatch);
        return id;
      },
      startWatchdog: (intervalMs) => {
        watchdog = new JobWatchdog(store, dispatcher, jobEvents, logger, {
          intervalMs,
          redispatchAfterMs: 600_000,
          reconcileAfterMs: 600_000,
          failAfterMs: 3_600_000,
        });
        watchdog.start();
      },
      stop: async () => {
        await watchdog?.stop();
        await wake.stop();
        await runner.stop();
        await messaging.drain();
      },
    };
  };

  const crawl = await service('crawl');
  const batch = await service('batch');
  const extras: Messaging[] = [];

  const waitFor = async <T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  return {
    site,
    db,
    events,
    crawl,
    batch,
    deadStore: async (leaseMs) => {
      const messaging = await Messaging.connect({ servers: nats.url, name: 'svc-dead', logger });
      extras.push(messaging);
      return {
        store: new JobStore(db, 'svc_dead', { teamLeaseMs: leaseMs }),
        // Its tasks go to the crawl subject, where the live crawl service finds no such job.
        dispatcher: new PageDispatcher(messaging, CRAWL_WORK.page, 'crawl'),
      };
    },
    waitFor,
    stop: async () => {
      await crawl.stop();
      await batch.stop();
      for (const m of extras) await m.drain();
      await eventConsumer.stop();
      await backend.drain();
      await db.close();
      await testDb.drop();
      await nats.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CRAWL_CONSUMERS,
  CRAWL_RPC,
  CRAWL_WORK,
  EVENTS,
  ErrorCode,
  SCRAPE_RPC,
  STREAMS,
  ServiceError,
  WebhookConfig,
  type JobEvent,
  type WebhookConfigInput,
} from '@wds/contracts';
import { Database, runMigrations } from '@wds/database';
import { startNats, type RunningServer } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createTestDatabase } from '@wds/testing';
import { JobQueries, JobRuntime, stableUuid, type JobPageEvents, type NewJob } from '../src';
import { MIGRATIONS, SQL_DIR, logger, serveFakeBilling } from './support/two-services';

const FAILED_PAGE = 'The page answered HTTP 500';
const BROKE = 'team-without-credits';

/**
 * The events a crawl-kind JobRuntime publishes for its pages and its end, with real JetStream and
 * PostgreSQL and a fake scraper that fails every URL under `/fail/` and billing that refuses the
 * team `BROKE`. A runtime runs at a time (each test starts its own, with its page-event setting).
 */
describe('job events of pages and failed jobs', () => {
  let dir: string;
  let nats: RunningServer;
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: Database;
  let backend: Messaging;
  let eventConsumer: { stop(): Promise<void> };
  const events: JobEvent[] = [];
  let running: { runtime: JobRuntime; messaging: Messaging } | undefined;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-jobs-events-'));
    nats = await startNats({ dataDir: path.join(dir, 'nats') });
    testDb = await createTestDatabase('jobs_events');
    db = new Database({ url: testDb.url, max: 10 });
    const migrations = path.join(dir, 'migrations');
    fs.mkdirSync(migrations);
    MIGRATIONS.forEach((f, i) =>
      fs.symlinkSync(path.join(SQL_DIR, f), path.join(migrations, `000${i + 1}_${f.replace('-', '_')}`)),
    );
    await runMigrations(db, { schema: 'svc_crawl', dir: migrations });

    backend = await Messaging.connect({ servers: nats.url, name: 'fake-backend', logger });
    await backend.ensureStreams([STREAMS.WDS_WORK_V1, STREAMS.WDS_EVENTS_V1, STREAMS.WDS_DLQ_V1]);
    serveFakeBilling(backend, new Set([BROKE]));
    backend.serve(SCRAPE_RPC.run, async (req) => {
      const url = req.options.url;
      if (new URL(url).pathname.startsWith('/fail/'))
        throw new ServiceError(ErrorCode.UPSTREAM_FAILED, FAILED_PAGE);
      return {
        document: { markdown: `# ${url}`, metadata: { sourceURL: url, title: 'A page' } },
        creditsUsed: 1,
      };
    });
    eventConsumer = await backend.consume(
      EVENTS.job,
      {
        stream: STREAMS.WDS_EVENTS_V1.name,
        durable: 'jobs-test-page-events',
        filterSubject: EVENTS.job.subject,
        ackWaitMs: 30_000,
        maxDeliver: 1,
      },
      async (event) => {
        events.push(event);
      },
    );
  }, 60_000);

  afterEach(async () => {
    await running?.runtime.stop();
    await running?.messaging.drain();
    running = undefined;
  }, 30_000);

  afterAll(async () => {
    await eventConsumer?.stop();
    await backend?.drain();
    await db?.close();
    await testDb?.drop();
    await nats?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  /** A crawl service's runtime, wired as apps/crawler wires it, with the given page-event setting. */
  async function startRuntime(pageEvents?: JobPageEvents): Promise<JobRuntime> {
    const messaging = await Messaging.connect({ servers: nats.url, name: 'svc-crawl', logger });
    const runtime = new JobRuntime(messaging, db, logger, {
      schema: 'svc_crawl',
      runner: {
        jobKind: 'crawl',
        endpoint: 'crawl',
        subject: CRAWL_WORK.page,
        consumer: CRAWL_CONSUMERS.page,
        concurrency: 8,
        hooks: {
          scrapeRequest: (_job, task) => ({ url: task.url, formats: ['markdown'] }),
          afterScrape: (_job, _task, document) => ({ document }),
        },
      },
      ...(pageEvents ? { pageEvents } : {}),
      watchdog: {
        intervalMs: 60_000,
        redispatchAfterMs: 600_000,
        reconcileAfterMs: 600_000,
        failAfterMs: 3_600_000,
      },
    });
    await runtime.start();
    running = { runtime, messaging };
    return runtime;
  }

  /** Creates a seeded job of `urls` and publishes its tasks and `crawl.started`, as the crawler does. */
  async function startJob(runtime: JobRuntime, urls: string[], extra: Partial<NewJob> = {}): Promise<string> {
    const id = randomUUID();
    await runtime.store.create({
      id,
      teamId: `team-${id}`,
      kind: 'crawl',
      url: urls[0],
      options: {},
      pageLimit: 100,
      concurrency: 4,
      delayMs: 0,
      zeroDataRetention: false,
      retentionMs: 3_600_000,
      teamConcurrency: 4,
      ...extra,
    });
    const outcome = await runtime.store.addPages(
      id,
      urls.map((url) => ({ urlKey: url, url, depth: 0 })),
      { seeded: true },
    );
    await runtime.dispatcher.publish(outcome.dispatch);
    const job = await runtime.store.get(id);
    await runtime.events.lifecycle(job!, 'started');
    return id;
  }

  /** The job's events once its `completed` or `failed` arrived. */
  async function endedEvents(id: string): Promise<JobEvent[]> {
    const deadline = Date.now() + 30_000;
    while (!events.some((e) => e.id === id && /\.(completed|failed)$/.test(e.type))) {
      if (Date.now() > deadline) throw new Error(`job ${id} never ended: ${JSON.stringify(events)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Page events are published before the event that ends the job; a short wait catches any
    // that would arrive out of order through the consumer.
    await new Promise((r) => setTimeout(r, 300));
    return events.filter((e) => e.id === id);
  }

  const pagesOf = (evs: JobEvent[]) => evs.filter((e) => e.type === 'crawl.page');

  it('publishes a failed page as success false with its error and no data, a scraped one with its document', async () => {
    const runtime = await startRuntime();
    const webhookInput: WebhookConfigInput = { url: 'http://hooks.test/in', metadata: { run: 1 } };
    const webhook = WebhookConfig.parse(webhookInput);
    const ok = 'http://pages.test/ok/1';
    const bad = 'http://pages.test/fail/1';
    const id = await startJob(runtime, [ok, bad], { webhook: webhookInput as Record<string, unknown> });
    const pages = pagesOf(await endedEvents(id));
    const common = { type: 'crawl.page', id, teamId: `team-${id}`, webhook, metadata: { run: 1 } };
    expect(pages.find((e) => e.success === false)).toEqual({
      ...common,
      success: false,
      webhookId: stableUuid(id, 'page', bad),
      data: [],
      error: FAILED_PAGE,
    });
    expect(pages.find((e) => e.success === true)).toEqual({
      ...common,
      success: true,
      webhookId: stableUuid(id, 'page', ok),
      data: [{ markdown: `# ${ok}`, metadata: { sourceURL: ok, title: 'A page' } }],
    });
    expect(pages).toHaveLength(2);
    // The job still completes: a failed page is listed in its errors, not a failed job.
    expect((await endedEvents(id)).map((e) => e.type)).toContain('crawl.completed');
  }, 60_000);

  it('publishes no page events for a job without a webhook by default', async () => {
    const runtime = await startRuntime();
    const id = await startJob(runtime, ['http://pages.test/quiet/1', 'http://pages.test/fail/quiet']);
    const mine = await endedEvents(id);
    expect(mine.map((e) => e.type).sort()).toEqual(['crawl.completed', 'crawl.started']);
  }, 60_000);

  it('publishes every page event with WDS_JOB_PAGE_EVENTS=all, except a zero-data-retention job’s', async () => {
    const runtime = await startRuntime('all');
    const ok = 'http://pages.test/all/1';
    const bad = 'http://pages.test/fail/all';
    const id = await startJob(runtime, [ok, bad]);
    const pages = pagesOf(await endedEvents(id));
    expect(pages.map((e) => [e.success, e.data.length, e.error]).sort()).toEqual([
      [false, 0, FAILED_PAGE],
      [true, 1, undefined],
    ]);
    for (const e of pages) expect(e.webhook).toBeUndefined();

    // Its documents would otherwise sit in the events stream for days with nobody to deliver them to.
    const zdr = await startJob(runtime, ['http://pages.test/zdr/1'], { zeroDataRetention: true });
    const zdrEvents = await endedEvents(zdr);
    expect(zdrEvents.map((e) => e.type).sort()).toEqual(['crawl.completed', 'crawl.started']);
    for (const e of zdrEvents) expect(e.zeroDataRetention).toBe(true);
    // Other jobs' events do not carry the flag at all (the webhook body never does either).
    for (const e of pages) expect('zeroDataRetention' in e).toBe(false);
  }, 60_000);

  it('sends a zero-data-retention job’s pages to its own webhook, flagged', async () => {
    const runtime = await startRuntime('webhook');
    const id = await startJob(runtime, ['http://pages.test/zdr-hook/1'], {
      zeroDataRetention: true,
      webhook: { url: 'http://hooks.test/zdr' },
    });
    const pages = pagesOf(await endedEvents(id));
    expect(pages).toHaveLength(1);
    expect(pages[0]).toMatchObject({ success: true, zeroDataRetention: true });
    expect(pages[0].data).toHaveLength(1);
  }, 60_000);

  it('ends a job failed for want of credits without an error in its event, the reason in its errors', async () => {
    const runtime = await startRuntime();
    const id = await startJob(runtime, ['http://pages.test/broke/1'], {
      teamId: BROKE,
      webhook: { url: 'http://hooks.test/broke' },
    });
    const failed = (await endedEvents(id)).find((e) => e.type === 'crawl.failed');
    expect(failed).toEqual({
      success: false,
      type: 'crawl.failed',
      id,
      webhookId: stableUuid(id, 'failed'),
      data: [],
      teamId: BROKE,
      webhook: WebhookConfig.parse({ url: 'http://hooks.test/broke' }),
    });
    const queries = new JobQueries(backend, runtime.store, runtime.events, {
      kind: 'crawl',
      rpcs: CRAWL_RPC,
    });
    const { errors } = await queries.errors(BROKE, id);
    expect(errors).toContainEqual(
      expect.objectContaining({ id, error: 'Insufficient credits to continue the job' }),
    );
  }, 60_000);

  it('sends a finished page’s event and the job’s completed again when its task comes back', async () => {
    // The process that finished the page may have died between its commit and these events: the
    // redelivered task finds the page done and sends them again, under the same webhookIds.
    const runtime = await startRuntime();
    const url = 'http://pages.test/again/1';
    const id = await startJob(runtime, [url], { webhook: { url: 'http://hooks.test/again' } });
    await endedEvents(id);
    const publish = jest.spyOn(running!.messaging, 'publish');
    try {
      await runtime.runner.handle(
        { jobKind: 'crawl', jobId: id, teamId: `team-${id}`, url, depth: 0, urlKey: url },
        2,
      );
      const sent = publish.mock.calls
        .filter(([def]) => def === EVENTS.job)
        .map(([, event]) => [(event as JobEvent).type, (event as JobEvent).webhookId]);
      expect(sent).toEqual([
        ['crawl.page', stableUuid(id, 'page', url)],
        ['crawl.completed', stableUuid(id, 'completed')],
      ]);
      const page = publish.mock.calls.find(
        ([def, e]) => def === EVENTS.job && (e as JobEvent).type === 'crawl.page',
      );
      expect((page![1] as JobEvent).data).toEqual([
        { markdown: `# ${url}`, metadata: { sourceURL: url, title: 'A page' } },
      ]);
    } finally {
      publish.mockRestore();
    }
  }, 60_000);

  it('publishes within seconds the task of a page claimed but never published (the claimer died)', async () => {
    // Claimed (dispatched in PostgreSQL) with no task: what a crash between a claim's commit and its
    // publish leaves. The watchdog's next pass after 4 s publishes it under its first msgId; before,
    // such a page waited for the 10-minute redispatch.
    const runtime = await startRuntime();
    const id = randomUUID();
    const url = 'http://pages.test/unpublished/1';
    await runtime.store.create({
      id,
      teamId: `team-${id}`,
      kind: 'crawl',
      url,
      options: {},
      pageLimit: 100,
      concurrency: 4,
      delayMs: 0,
      zeroDataRetention: false,
      retentionMs: 3_600_000,
      teamConcurrency: 4,
    });
    const claimed = await runtime.store.addPages(id, [{ urlKey: url, url, depth: 0 }], { seeded: true });
    expect(claimed.dispatch).toHaveLength(1);
    await runtime.watchdog.runOnce();
    expect((await runtime.store.get(id))?.status).toBe('scraping');
    await new Promise((r) => setTimeout(r, 4500));
    await runtime.watchdog.runOnce();
    expect((await endedEvents(id)).map((e) => e.type)).toEqual(['crawl.completed']);
  }, 60_000);
});

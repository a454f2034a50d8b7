import { randomUUID } from 'node:crypto';
import {
  CRAWL_RPC,
  CrawlRequest,
  ErrorCode,
  RPC,
  ServiceError,
  type CrawlRequestInput,
  type JobErrorsResponse,
  type JobStatusReply,
} from '@wds/contracts';
import { Database } from '@wds/database';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { bootstrapService, type RunningService } from '@wds/service-kit';
import { buildApps, REPO_ROOT, startServiceStack, type ServiceChild, type ServiceStack } from '@wds/testing';
import { crawlerServiceOptions } from '../../src/crawler.service-options';

export type { ServiceChild } from '@wds/testing';
export const ROOT = REPO_ROOT;

/** Builds the services the crawler works with (the test runs their shipped output). */
export function buildServices(): void {
  buildApps(['scraper', 'billing', 'crawler']);
}

export interface CrawlStack extends Pick<
  ServiceStack,
  'site' | 'natsUrl' | 'databaseUrl' | 'env' | 'spawnService' | 'stop'
> {
  db: Database;
  client: Messaging;
  /** Runs a crawler in this process. */
  startCrawler(env?: Record<string, string>): Promise<RunningService>;
  team(credits?: number): Promise<string>;
  createCrawl(teamId: string, request: CrawlRequestInput, teamConcurrency?: number): Promise<string>;
  status(teamId: string, id: string, skip?: number): Promise<JobStatusReply>;
  errors(teamId: string, id: string): Promise<JobErrorsResponse>;
  /** Waits for a final status and returns every document (parsed), in completion order. */
  finish(teamId: string, id: string, timeoutMs?: number): Promise<{ status: JobStatusReply; docs: any[] }>;
  /** The scraper process the stack started (tests that kill it start another with spawnService). */
  scraper: ServiceChild;
}

/**
 * A private nats-server, a fresh database, the fixture site, and the real scraper and billing
 * services as processes (built output; @wds/testing `startServiceStack`). Crawlers run in-process
 * or as processes per test.
 */
export async function startCrawlStack(extraEnv: Record<string, string> = {}): Promise<CrawlStack> {
  const stack = await startServiceStack({ name: 'crawler', env: extraEnv });
  let db: Database;
  let client: Messaging;
  let scraper: ServiceChild;
  try {
    db = new Database({ url: stack.databaseUrl });
    stack.onStop(() => db.close());
    client = await Messaging.connect({
      servers: stack.natsUrl,
      name: 'crawler-test',
      logger: createLogger({ service: 'crawler-test', level: 'fatal' }),
    });
    stack.onStop(() => client.drain());
    await stack.spawnService('billing');
    scraper = await stack.spawnService('scraper');
  } catch (err) {
    await stack.stop();
    throw err;
  }

  const status = (teamId: string, id: string, skip = 0) =>
    client.request(CRAWL_RPC.status, { teamId, jobId: id, skip, maxBytes: 400 * 1024 });

  return {
    site: stack.site,
    natsUrl: stack.natsUrl,
    databaseUrl: stack.databaseUrl,
    db,
    client,
    env: stack.env,
    scraper,
    spawnService: stack.spawnService,
    startCrawler: async (more = {}) => {
      const running = await bootstrapService(crawlerServiceOptions(stack.inProcessEnv(more)));
      stack.onStop(() => running.stop(), { first: true });
      return running;
    },
    team: async (credits = 100_000) => {
      const teamId = `team-${randomUUID()}`;
      await client.request(RPC.creditsGrant, {
        teamId,
        amount: credits,
        reason: 'test',
        idempotencyKey: teamId,
      });
      return teamId;
    },
    createCrawl: async (teamId, request, teamConcurrency = 20) => {
      const { id } = await client.request(CRAWL_RPC.create, {
        crawlId: randomUUID(),
        teamId,
        request: CrawlRequest.parse(request),
        teamConcurrency,
      });
      return id;
    },
    status,
    errors: (teamId, id) => client.request(CRAWL_RPC.errors, { teamId, jobId: id }),
    finish: async (teamId, id, timeoutMs = 30_000) => {
      const until = Date.now() + timeoutMs;
      // A status read may find no crawler answering for a moment (one was just killed, or the
      // survivor is saturated on a loaded machine): that is "try again", as the gateway's 503 is
      // for a client. A crawl that never finishes still fails on the deadline below.
      const poll = async () => {
        for (;;) {
          try {
            return await status(teamId, id);
          } catch (err) {
            const unavailable = err instanceof ServiceError && err.code === ErrorCode.SERVICE_UNAVAILABLE;
            if (!unavailable || Date.now() > until) throw err;
            await new Promise((r) => setTimeout(r, 200));
          }
        }
      };
      let s = await poll();
      while (s.status === 'scraping') {
        if (Date.now() > until)
          throw new Error(`crawl still running: ${JSON.stringify({ ...s, items: [] })}`);
        await new Promise((r) => setTimeout(r, 100));
        s = await poll();
      }
      const docs: any[] = [];
      let skip = 0;
      for (;;) {
        const page = await status(teamId, id, skip);
        if (!page.items.length) break;
        for (const item of page.items) {
          docs.push(item.json ? JSON.parse(item.json) : { bytes: item.bytes, chunks: item.chunks });
          skip = item.seq;
        }
      }
      return { status: s, docs };
    },
    stop: stack.stop,
  };
}

/** Path names of the documents' source URLs, sorted. */
export function pathsOf(docs: any[]): string[] {
  return docs.map((d) => new URL(d.metadata.sourceURL ?? d.metadata.url).pathname).sort();
}

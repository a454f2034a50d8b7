import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { startNats, type RunningServer } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { bootstrapService, type RunningService } from '@wds/service-kit';
import { createTestDatabase, startFixtureSite, type FixtureSite } from '@wds/testing';
import { crawlerServiceOptions } from '../../src/crawler.service-options';

export const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** Builds the services the crawler works with (the test runs their shipped output). */
export function buildServices(): void {
  for (const app of ['scraper', 'billing', 'crawler']) {
    execFileSync('npx', ['tsc', '-b', `apps/${app}/tsconfig.build.json`], { cwd: ROOT, stdio: 'pipe' });
  }
}

export interface ServiceChild {
  name: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

export interface CrawlStack {
  site: FixtureSite;
  natsUrl: string;
  databaseUrl: string;
  db: Database;
  client: Messaging;
  env: Record<string, string>;
  /** Starts `apps/<name>/dist/main.js` as its own process; resolves once it is ready. */
  spawnService(name: string, env?: Record<string, string>): Promise<ServiceChild>;
  /** Runs a crawler in this process. */
  startCrawler(env?: Record<string, string>): Promise<RunningService>;
  team(credits?: number): Promise<string>;
  createCrawl(teamId: string, request: CrawlRequestInput, teamConcurrency?: number): Promise<string>;
  status(teamId: string, id: string, skip?: number): Promise<JobStatusReply>;
  errors(teamId: string, id: string): Promise<JobErrorsResponse>;
  /** Waits for a final status and returns every document (parsed), in completion order. */
  finish(teamId: string, id: string, timeoutMs?: number): Promise<{ status: JobStatusReply; docs: any[] }>;
  stop(): Promise<void>;
  /** The scraper process the stack started (tests that kill it start another with spawnService). */
  scraper: ServiceChild;
}

/**
 * A private nats-server, a fresh database, the fixture site, and the real scraper and billing
 * services as processes (built output). Crawlers run in-process or as processes per test.
 */
export async function startCrawlStack(extraEnv: Record<string, string> = {}): Promise<CrawlStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-crawl-test-'));
  const nats: RunningServer = await startNats({ dataDir: path.join(dir, 'nats') });
  const testDb = await createTestDatabase('crawler');
  const site = await startFixtureSite();
  const db = new Database({ url: testDb.url });
  const client = await Messaging.connect({
    servers: nats.url,
    name: 'crawler-test',
    logger: createLogger({ service: 'crawler-test', level: 'fatal' }),
  });
  const env: Record<string, string> = {
    NATS_URL: nats.url,
    DATABASE_URL: testDb.url,
    HEALTH_PORT: '0',
    HEALTH_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port}`,
    SHUTDOWN_GRACE_MS: '5000',
    ...extraEnv,
  };
  const children: ServiceChild[] = [];
  const crawlers: RunningService[] = [];

  const spawnService = async (name: string, more: Record<string, string> = {}): Promise<ServiceChild> => {
    let out = '';
    const child = spawn(process.execPath, [path.join(ROOT, `apps/${name}/dist/main.js`)], {
      cwd: ROOT,
      // info: readiness is read from the start-up log line carrying healthUrl.
      env: {
        PATH: process.env.PATH,
        ...env,
        LOG_LEVEL: 'info',
        WDS_INSTANCE_ID: `${name}-${randomUUID().slice(0, 8)}`,
        ...more,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20000)));
    child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20000)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const svc = { name, child, output: () => out, exited };
    children.push(svc);
    await new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + 60_000;
      const timer = setInterval(() => {
        if (Date.now() > deadline) {
          clearInterval(timer);
          child.kill('SIGKILL');
          reject(new Error(`${name} not ready within 60 s:\n${out}`));
          return;
        }
        if (out.includes('"healthUrl"')) {
          clearInterval(timer);
          resolve();
        } else if (child.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`${name} exited early:\n${out}`));
        }
      }, 50);
    });
    return svc;
  };

  await spawnService('billing');
  const scraper = await spawnService('scraper');

  const status = (teamId: string, id: string, skip = 0) =>
    client.request(CRAWL_RPC.status, { teamId, jobId: id, skip, maxBytes: 400 * 1024 });

  return {
    site,
    natsUrl: nats.url,
    databaseUrl: testDb.url,
    db,
    client,
    env,
    scraper,
    spawnService,
    startCrawler: async (more = {}) => {
      const running = await bootstrapService(
        crawlerServiceOptions({
          ...env,
          LOG_LEVEL: 'fatal',
          WDS_INSTANCE_ID: `crawler-${randomUUID()}`,
          ...more,
        }),
      );
      crawlers.push(running);
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
    stop: async () => {
      for (const c of crawlers) await c.stop().catch(() => undefined);
      for (const c of children) {
        if (c.child.exitCode === null) {
          c.child.kill('SIGTERM');
          await Promise.race([c.exited, new Promise((r) => setTimeout(r, 8000))]);
          if (c.child.exitCode === null) c.child.kill('SIGKILL');
        }
      }
      await client.drain();
      await db.close();
      await site.close();
      await testDb.drop();
      await nats.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Path names of the documents' source URLs, sorted. */
export function pathsOf(docs: any[]): string[] {
  return docs.map((d) => new URL(d.metadata.sourceURL ?? d.metadata.url).pathname).sort();
}

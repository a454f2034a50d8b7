import { randomBytes, randomUUID } from 'node:crypto';
import { EVENTS, RPC, STREAMS, type JobEvent } from '@wds/contracts';
import { Database } from '@wds/database';
import { freePort } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { buildApps, REPO_ROOT, startServiceStack, type ServiceStack } from '@wds/testing';

export type { ServiceChild } from '@wds/testing';
export const ROOT = REPO_ROOT;

/** Builds the services of the stack (the tests run their shipped output). */
export function buildServices(): void {
  buildApps(['scraper', 'billing', 'gateway', 'batch', 'crawler']);
}
export interface Team {
  teamId: string;
  apiKey: string;
}

export interface Answer {
  status: number;
  body: any;
}

export interface BatchStack extends Pick<ServiceStack, 'site' | 'spawnService' | 'stop'> {
  db: Database;
  client: Messaging;
  /** The gateway's base URL. */
  url: string;
  /** Every job event published on EVENTS.job so far, in arrival order. */
  events: JobEvent[];
  team(opts?: { credits?: number; maxConcurrency?: number; zeroDataRetention?: boolean }): Promise<Team>;
  balance(teamId: string): Promise<number>;
  call(method: string, route: string, opts?: { key?: string; json?: unknown }): Promise<Answer>;
  /** Polls GET status until the batch has ended; returns the last answer. */
  waitEnded(key: string, id: string, timeoutMs?: number): Promise<any>;
  /** Every document of an ended batch, following `next`; also the number of pages read. */
  allDocuments(key: string, id: string): Promise<{ docs: any[]; pages: number; first: any }>;
}

const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;

/**
 * A private nats-server, a fresh database, the fixture site, and the real billing, scraper and
 * gateway as processes (built output). Batch workers (and a crawler, for team-wide limits) are
 * spawned by the tests, so one can be killed mid-job. `allowPorts`: more loopback ports the
 * services may fetch from; `env`: more environment for every service (e.g. the LLM provider).
 */
export async function startBatchStack(
  opts: { allowPorts?: number[]; env?: Record<string, string> } = {},
): Promise<BatchStack> {
  const stack = await startServiceStack({ name: 'batch', allowPorts: opts.allowPorts, env: opts.env });
  const { spawnService } = stack;
  const db = new Database({ url: stack.databaseUrl });
  stack.onStop(() => db.close());
  const client = await Messaging.connect({
    servers: stack.natsUrl,
    name: 'batch-test',
    logger: createLogger({ service: 'batch-test', level: 'fatal' }),
  });
  stack.onStop(() => client.drain());
  await client.ensureStreams([STREAMS.WDS_EVENTS_V1]);
  const events: JobEvent[] = [];
  const eventConsumer = await client.consume(
    EVENTS.job,
    {
      stream: STREAMS.WDS_EVENTS_V1.name,
      durable: 'batch-test-events',
      filterSubject: EVENTS.job.subject,
      ackWaitMs: 30_000,
      maxDeliver: 1,
    },
    async (event) => {
      events.push(event);
    },
  );
  stack.onStop(() => eventConsumer.stop());

  const port = await freePort();
  try {
    await spawnService('billing');
    await spawnService('scraper');
    await spawnService('gateway', { PORT: String(port), HOST: '127.0.0.1', WDS_ADMIN_TOKEN: ADMIN_TOKEN });
  } catch (err) {
    await stack.stop();
    throw err;
  }
  const url = `http://127.0.0.1:${port}`;

  const call = async (
    method: string,
    route: string,
    opts: { key?: string; json?: unknown; admin?: boolean } = {},
  ): Promise<Answer> => {
    const token = opts.admin ? ADMIN_TOKEN : opts.key;
    const res = await fetch(route.startsWith('http') ? route : `${url}${route}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(opts.json !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: opts.json !== undefined ? JSON.stringify(opts.json) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the assertion on it will say so
    }
    return { status: res.status, body };
  };

  const waitEnded = async (key: string, id: string, timeoutMs = 30_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const res = await call('GET', `/v2/batch/scrape/${id}?limit=1`, { key });
      if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(res.body)}`);
      if (res.body.status !== 'scraping') return res.body;
      if (Date.now() > until)
        throw new Error(`batch still running: ${JSON.stringify({ ...res.body, data: [] })}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  return {
    site: stack.site,
    url,
    db,
    client,
    events,
    spawnService,
    team: async (opts = {}) => {
      const created = await call('POST', '/admin/v1/teams', {
        admin: true,
        json: {
          name: `batch-test-${randomUUID().slice(0, 8)}`,
          credits: opts.credits ?? 10_000,
          ...(opts.maxConcurrency ? { limits: { maxConcurrency: opts.maxConcurrency } } : {}),
        },
      });
      if (created.status !== 201) throw new Error(`team: ${created.status} ${JSON.stringify(created.body)}`);
      if (opts.zeroDataRetention) {
        await db.query('UPDATE gateway.teams SET zero_data_retention_enabled = true WHERE id = $1', [
          created.body.teamId,
        ]);
      }
      return created.body as Team;
    },
    balance: async (teamId) => (await client.request(RPC.creditsBalance, { teamId })).balance,
    call,
    waitEnded,
    allDocuments: async (key, id) => {
      const first = (await call('GET', `/v2/batch/scrape/${id}`, { key })).body;
      const docs: any[] = [...first.data];
      let next: string | null = first.next;
      let pages = 1;
      while (next) {
        const page = await call('GET', next, { key });
        if (page.status !== 200) throw new Error(`next ${page.status}: ${JSON.stringify(page.body)}`);
        docs.push(...page.body.data);
        next = page.body.next;
        pages++;
      }
      return { docs, pages, first };
    },
    stop: stack.stop,
  };
}

/** Path and query of the documents' source URLs, sorted. */
export function sourcesOf(docs: any[]): string[] {
  return docs
    .map((d) => {
      const u = new URL(d.metadata.sourceURL ?? d.metadata.url);
      return u.pathname + u.search;
    })
    .sort();
}

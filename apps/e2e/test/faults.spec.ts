import { randomBytes } from 'node:crypto';
import { freePort } from '@wds/local-infra';
import { startGeneratedSite, type GeneratedSite } from '@wds/testing';
import { Client } from 'pg';
import { callApi, listenLocal, type LocalServer } from './support/http';
import { ProgressRecorder, formatFigures, type PauseFigures, type ServerErrorSeen } from './support/progress';
import { isListening, startE2eStack, type E2eStack, type StackProcess } from './support/stack-process';

// Fault injection through the whole stack (`npm start`): each of scraper, crawler, batch, webhooks,
// billing, nats-server and PostgreSQL is SIGKILLed in the middle of a job. npm start brings it back;
// the job must still store every page once, charge every page once and reach its final state, and
// the pause it caused is measured (printed, and recorded in docs/benchmarks.md).

const READY_TIMEOUT_MS = 120_000;
const KEY = `e2e-faults-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;
const PAGES = 120;
/** Kill once this many pages are done: mid-job, with pages in flight. */
const KILL_AT = 25;
/**
 * A bound far above the 5 s target and far below the 80-90 s the stack used to pause for (JetStream
 * redelivery after a 90 s ack wait; requests to a dead scraper waiting out their timeout). Not a
 * timing assertion to tune: a regression to "waits for a timeout" trips it on any machine.
 */
const RESUME_BOUND_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a job survives any one process of the stack being SIGKILLed', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let site: GeneratedSite;
  let receiver: LocalServer & { got: Array<{ at: number; body: any }> };
  const figures: PauseFigures[] = [];

  beforeAll(async () => {
    site = await startGeneratedSite({ pages: PAGES, delayMs: 120 });
    const got: Array<{ at: number; body: any }> = [];
    const server = await listenLocal((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ at: Date.now(), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(200).end();
      });
    });
    receiver = { ...server, got };
    e2e = await startE2eStack({
      name: 'faults',
      port: await freePort(),
      readyTimeoutMs: READY_TIMEOUT_MS,
      env: {
        WDS_BOOTSTRAP_API_KEY: KEY,
        WDS_ADMIN_TOKEN: ADMIN_TOKEN,
        WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiver.port}`,
      },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 20_000);

  afterAll(async () => {
    if (figures.length > 0)
      process.stdout.write(`\nPause per fault (${PAGES}-page jobs):\n${formatFigures(figures)}\n`);
    await e2e?.stop();
    await site?.close();
    await receiver?.close();
  }, 60_000);

  /** A fresh team per fault, so its ledger holds that fault's job alone. */
  async function newTeam(): Promise<{ teamId: string; key: string }> {
    const created = await callApi(stack.url, 'POST', '/admin/v1/teams', {
      key: ADMIN_TOKEN,
      body: { name: `faults-${randomBytes(4).toString('hex')}`, credits: 10_000 },
    });
    expect(created.status).toBe(201);
    return { teamId: created.body.teamId, key: created.body.apiKey };
  }

  /**
   * A status call that records any 5xx: only 503 with Retry-After in the error envelope is allowed
   * (a process or PostgreSQL away), never 500. Returns the body of a 200.
   */
  async function status(route: string, key: string, errors: ServerErrorSeen[]): Promise<any> {
    const res = await fetch(`${stack.url}${route}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (res.status >= 500) {
      errors.push({
        at: Date.now(),
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: text,
      });
      return undefined;
    }
    if (res.status !== 200) throw new Error(`${route}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  }

  function expectOnly503s(errors: ServerErrorSeen[]): void {
    const bad = errors.filter((e) => {
      if (e.status !== 503 || !e.retryAfter) return true;
      try {
        const body = JSON.parse(e.body);
        return (
          body.success !== false || typeof body.error !== 'string' || body.code !== 'SERVICE_UNAVAILABLE'
        );
      } catch {
        return true;
      }
    });
    expect(bad).toEqual([]);
  }

  async function killProcess(name: string): Promise<{ killedAt: number; back: Promise<number> }> {
    const before = stack.processes.get(name);
    if (!before) throw new Error(`the stack announced no process named ${name}`);
    process.kill(before.pid, 'SIGKILL');
    const killedAt = Date.now();
    // Back = the replacement listens (a service's health port opens at the end of its start-up).
    const back = (async () => {
      for (const until = killedAt + 120_000; Date.now() < until; await sleep(50)) {
        const now = stack.processes.get(name);
        if (now && now.pid !== before.pid && isListening(now.pid)) return Date.now();
      }
      throw new Error(`${name} was not back within 120 s:\n${stack.tail()}`);
    })();
    return { killedAt, back };
  }

  /** Every document of a finished job, following `next`. */
  async function documents(route: string, key: string): Promise<any[]> {
    const docs: any[] = [];
    for (let next: string | undefined = route; next;) {
      const page = await callApi(stack.url, 'GET', next, { key });
      expect(page.status).toBe(200);
      docs.push(...page.body.data);
      next = page.body.next ?? undefined;
    }
    return docs;
  }

  /** Pages once, credits once (the billing ledger: one usage row per page, one key each). */
  async function expectExactlyOnce(teamId: string, docs: any[], creditsUsed: number): Promise<void> {
    const urls = docs.map((d) => d.metadata.sourceURL as string);
    expect(urls).toHaveLength(PAGES);
    expect(new Set(urls).size).toBe(PAGES);
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n, count(DISTINCT usage_key)::int AS keys, coalesce(sum(amount), 0)::int AS charged
         FROM billing.usage WHERE team_id = $1`,
        [teamId],
      );
      expect(rows[0]).toEqual({ n: PAGES, keys: PAGES, charged: PAGES });
    } finally {
      await db.end();
    }
    expect(creditsUsed).toBe(PAGES);
  }

  /**
   * Runs a crawl (or a batch scrape of every page) of the generated site, SIGKILLs `name` once
   * KILL_AT pages are done, and checks the job's outcome. Progress is the job's completed count,
   * or, with `viaWebhooks`, the distinct pages delivered to the receiver.
   */
  async function runFault(
    name: string,
    opts: { batch?: boolean; viaWebhooks?: boolean } = {},
  ): Promise<void> {
    const { teamId, key } = await newTeam();
    const hookPath = `/${name}-${randomBytes(3).toString('hex')}`;
    const webhook = { url: `${receiver.url}${hookPath}`, events: ['page', 'completed'] };
    const created = opts.batch
      ? await callApi(stack.url, 'POST', '/v2/batch/scrape', {
          key,
          body: {
            urls: Array.from({ length: PAGES }, (_, i) => `${site.url}${i === 0 ? '/' : `/p/${i}`}`),
            maxConcurrency: 4,
            maxAge: 0,
            webhook,
          },
        })
      : await callApi(stack.url, 'POST', '/v2/crawl', {
          key,
          body: {
            url: site.url,
            sitemap: 'skip',
            maxConcurrency: 4,
            scrapeOptions: { maxAge: 0 },
            webhook,
          },
        });
    expect(created.status).toBe(200);
    const route = `${opts.batch ? '/v2/batch/scrape' : '/v2/crawl'}/${created.body.id}`;
    const errors: ServerErrorSeen[] = [];
    const delivered = () =>
      new Set(
        receiver.got
          .filter((d) => d.body.id === created.body.id && /\.page$/.test(d.body.type))
          .map((d) => d.body.data[0]?.metadata?.sourceURL),
      ).size;
    const recorder = new ProgressRecorder(async () =>
      opts.viaWebhooks ? delivered() : (await status(`${route}?limit=1`, key, errors))?.completed,
    );
    try {
      for (const until = Date.now() + 120_000; ; await sleep(50)) {
        const last = recorder.samples.at(-1)?.done ?? 0;
        if (last >= KILL_AT) break;
        if (Date.now() > until) throw new Error(`${route}: fewer than ${KILL_AT} pages done in 120 s`);
      }
      const { killedAt, back } = await killProcess(name);
      const backAt = await back;
      let final: any;
      for (const until = Date.now() + 240_000; ; await sleep(100)) {
        final = await status(route, key, errors).catch(() => undefined);
        const finished = opts.viaWebhooks
          ? receiver.got.some((d) => d.body.id === created.body.id && /\.completed$/.test(d.body.type))
          : final && final.status !== 'scraping';
        if (finished) break;
        if (Date.now() > until) throw new Error(`${route} did not finish within 240 s of the kill`);
      }
      const finishedAt = Date.now();
      await recorder.stop();
      const f = recorder.figures(name, killedAt, backAt, finishedAt);
      figures.push(f);
      process.stdout.write(`${formatFigures([f])}\n`);

      final ??= await status(route, key, errors);
      expect({ status: final.status, total: final.total, completed: final.completed }).toEqual({
        status: 'completed',
        total: PAGES,
        completed: PAGES,
      });
      await expectExactlyOnce(teamId, await documents(route, key), final.creditsUsed);
      // Every page reached the receiver (at least once; a redelivery carries the same webhookId).
      for (const until = Date.now() + 60_000; delivered() < PAGES && Date.now() < until;) await sleep(200);
      expect(delivered()).toBe(PAGES);
      const ofJob = () => receiver.got.filter((d) => d.body.id === created.body.id);
      const completedType = opts.batch ? 'batch_scrape.completed' : 'crawl.completed';
      for (const until = Date.now() + 60_000; Date.now() < until; await sleep(200)) {
        if (ofJob().some((d) => d.body.type === completedType)) break;
      }
      expect(ofJob().filter((d) => d.body.type === completedType).length).toBeGreaterThanOrEqual(1);
      // Page events and the completed one, each under its own webhookId (repeats share theirs).
      expect(new Set(ofJob().map((d) => d.body.webhookId)).size).toBe(PAGES + 1);
      expectOnly503s(errors);
      expect(f.resumedAfterBackMs).toBeLessThan(RESUME_BOUND_MS);
    } finally {
      await recorder.stop();
    }
  }

  it('a crawl survives the scraper being SIGKILLed', () => runFault('scraper'), 300_000);
  it('a crawl survives the crawler being SIGKILLed', () => runFault('crawler'), 300_000);
  it(
    'a batch scrape survives the batch service being SIGKILLed',
    () => runFault('batch', { batch: true }),
    300_000,
  );
  it(
    'webhook deliveries survive the webhooks service being SIGKILLed',
    () => runFault('webhooks', { viaWebhooks: true }),
    300_000,
  );
  it('a crawl survives billing being SIGKILLed', () => runFault('billing'), 300_000);
  it('a crawl survives nats-server being SIGKILLed (npm start restarts it)', () => runFault('nats'), 300_000);
  it(
    'a crawl survives PostgreSQL being SIGKILLed (npm start restarts it)',
    () => runFault('postgres'),
    300_000,
  );
});

import { createHmac, randomBytes } from 'node:crypto';
import { freePort } from '@wds/local-infra';
import { startFixtureSite, type FixtureSite } from '@wds/testing';
import { callApi, listenLocal, type LocalServer } from './support/http';
import { startE2eStack, type E2eStack, type StackProcess } from './support/stack-process';

// Webhooks of a real crawl and a real batch scrape through the whole stack (`npm start`): the
// gateway, crawler, batch, scraper and webhooks services deliver to a receiver run by the test.

const READY_TIMEOUT_MS = 90_000;
const KEY = `e2e-hooks-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;
const SECRET = `whsec-${randomBytes(24).toString('hex')}`;

interface Delivery {
  path: string;
  signature: string | undefined;
  raw: Buffer;
  body: any;
}

/** Records every POST with its exact bytes; answers 200, or 503 on the paths in `down`. */
async function startReceiver(): Promise<LocalServer & { got: Delivery[]; down: Set<string> }> {
  const got: Delivery[] = [];
  const down = new Set<string>();
  const server = await listenLocal((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const signature = req.headers['x-service-signature'];
      got.push({
        path: req.url ?? '/',
        signature: typeof signature === 'string' ? signature : undefined,
        raw,
        body: JSON.parse(raw.toString('utf8')),
      });
      res.writeHead(down.has(req.url ?? '/') ? 503 : 200).end();
    });
  });
  return { ...server, got, down };
}

describe('webhooks of crawls and batch scrapes through the stack', () => {
  let e2e: E2eStack | undefined;
  let site: FixtureSite;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stack: StackProcess;

  const call = (method: string, route: string, body?: unknown, key = KEY) =>
    callApi(stack.url, method, route, { key, body, timeoutMs: 30_000 });
  const deliveriesTo = (p: string) => receiver.got.filter((d) => d.path === p);
  /** Waits until `p` received `type` `count` times; returns everything `p` received, in arrival order. */
  const waitForType = async (p: string, type: string, count = 1) => {
    for (const until = Date.now() + 30_000; ;) {
      if (deliveriesTo(p).filter((d) => d.body.type === type).length >= count) return deliveriesTo(p);
      if (Date.now() > until) {
        throw new Error(
          `${p}: no ${type} (got ${deliveriesTo(p)
            .map((d) => d.body.type)
            .join(', ')})`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** Signed with the team secret over the exact bytes received, metadata echoed, ids unique. */
  const expectWellFormed = (deliveries: Delivery[], jobId: string, metadata: unknown) => {
    for (const d of deliveries) {
      expect(d.signature).toBe(`sha256=${createHmac('sha256', SECRET).update(d.raw).digest('hex')}`);
      expect(d.body).toMatchObject({ id: jobId, metadata, webhookId: expect.any(String) });
    }
    expect(new Set(deliveries.map((d) => d.body.webhookId)).size).toBe(deliveries.length);
  };
  /** started, then every page, then completed. */
  const expectOrder = (types: string[], kind: string, pages: number) => {
    expect(types).toEqual([
      `${kind}.started`,
      ...Array.from({ length: pages }, () => `${kind}.page`),
      `${kind}.completed`,
    ]);
  };

  beforeAll(async () => {
    site = await startFixtureSite();
    receiver = await startReceiver();
    e2e = await startE2eStack({
      name: 'hooks',
      port: await freePort(),
      readyTimeoutMs: READY_TIMEOUT_MS,
      env: {
        WDS_BOOTSTRAP_API_KEY: KEY,
        WDS_ADMIN_TOKEN: ADMIN_TOKEN,
        WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${receiver.port}`,
        // Short enough that a receiver that stays down makes its deliveries give up within the test.
        WDS_WEBHOOK_RETRY_SCHEDULE: '100ms,200ms',
      },
    });
    stack = e2e.stack;
    // The operator sets the team's signing secret through the admin API.
    const set = await call(
      'PUT',
      `/admin/v1/teams/${stack.team}/webhook-secret`,
      { secret: SECRET },
      ADMIN_TOKEN,
    );
    expect(set.status).toBe(200);
  }, READY_TIMEOUT_MS + 20_000);

  afterAll(async () => {
    await e2e?.stop();
    await site?.close();
    await receiver?.close();
  }, 30_000);

  it('delivers a crawl: started, every page, completed; signed, with metadata', async () => {
    const metadata = { run: 'crawl-e2e', n: 1 };
    const created = await call('POST', '/v2/crawl', {
      url: `${site.url}/docs`,
      limit: 3,
      sitemap: 'skip',
      scrapeOptions: { formats: ['markdown'] },
      webhook: { url: `${receiver.url}/crawl`, metadata },
    });
    expect(created.status).toBe(200);
    const got = await waitForType('/crawl', 'crawl.completed');
    const status = await call('GET', `/v2/crawl/${created.body.id}`);
    expect(status.body).toMatchObject({ status: 'completed', completed: 3, total: 3 });

    expectOrder(
      got.map((d) => d.body.type),
      'crawl',
      3,
    );
    expectWellFormed(got, created.body.id, metadata);
    const pages = got.filter((d) => d.body.type === 'crawl.page');
    expect(pages.map((d) => new URL(d.body.data[0].metadata.sourceURL).pathname).sort()).toEqual(
      status.body.data.map((doc: any) => new URL(doc.metadata.sourceURL).pathname).sort(),
    );
    for (const p of pages)
      expect(p.body).toMatchObject({ success: true, data: [{ markdown: expect.any(String) }] });
    expect(got[0].body).toMatchObject({ success: true, data: [] });
    expect(got[got.length - 1].body).toMatchObject({ success: true, data: [] });
  }, 60_000);

  it('delivers a batch scrape, and a new completed when an append reopens it', async () => {
    const metadata = { run: 'batch-e2e' };
    const webhook = { url: `${receiver.url}/batch`, metadata };
    const created = await call('POST', '/v2/batch/scrape', {
      urls: [`${site.url}/article`, `${site.url}/meta`],
      formats: ['markdown'],
      webhook,
    });
    expect(created.status).toBe(200);
    const id = created.body.id;
    const first = await waitForType('/batch', 'batch_scrape.completed');
    expectOrder(
      first.map((d) => d.body.type),
      'batch_scrape',
      2,
    );
    expectWellFormed(first, id, metadata);

    const appended = await call('POST', '/v2/batch/scrape', {
      urls: [`${site.url}/docs/a`],
      formats: ['markdown'],
      webhook,
      appendToId: id,
    });
    expect(appended.status).toBe(200);
    const all = await waitForType('/batch', 'batch_scrape.completed', 2);
    expect(all.slice(first.length).map((d) => d.body.type)).toEqual([
      'batch_scrape.page',
      'batch_scrape.completed',
    ]);
    expectWellFormed(all, id, metadata);
    expect(all[all.length - 2].body.data[0].metadata.sourceURL).toBe(`${site.url}/docs/a`);
    const status = await call('GET', `/v2/batch/scrape/${id}`);
    expect(status.body).toMatchObject({ status: 'completed', total: 3, completed: 3 });
  }, 60_000);

  it('sends deliveries that gave up again once the receiver is back: the team by job, the operator by time', async () => {
    /** The job's delivery log once every delivery is `status` (3 attempts each before giving up). */
    const logWhen = async (jobId: string, status: string, n: number) => {
      for (const until = Date.now() + 30_000; ;) {
        const res = await call('GET', `/v2/webhooks/deliveries?jobId=${jobId}`);
        expect(res.status).toBe(200);
        const d = res.body.deliveries as {
          status: string;
          attempts: number;
          webhookId: string;
          type: string;
        }[];
        if (d.length === n && d.every((x) => x.status === status)) return d;
        if (Date.now() > until)
          throw new Error(`${jobId}: deliveries never all ${status}: ${JSON.stringify(d)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const batch = async (path: string) => {
      const created = await call('POST', '/v2/batch/scrape', {
        urls: [`${site.url}/article`],
        formats: ['markdown'],
        webhook: { url: `${receiver.url}${path}`, metadata: { run: 'retry' } },
      });
      expect(created.status).toBe(200);
      return created.body.id as string;
    };
    receiver.down.add('/down');
    const id = await batch('/down');
    const failed = await logWhen(id, 'failed', 3);
    expect(failed.map((d) => [d.type, d.attempts])).toEqual([
      ['batch_scrape.started', 3],
      ['batch_scrape.page', 3],
      ['batch_scrape.completed', 3],
    ]);
    const before = deliveriesTo('/down').length;
    expect(before).toBe(9);

    // The team: bad input is a 400 that changes nothing; another team's key re-queues nothing.
    for (const body of [{}, { jobId: 'x' }, { jobId: id, webhookIds: [] }, { jobId: id, extra: 1 }]) {
      const bad = await call('POST', '/v2/webhooks/deliveries/resend', body);
      expect({ body, status: bad.status }).toEqual({ body, status: 400 });
    }
    const other = await call('POST', '/admin/v1/teams', { name: 'hooks-other', credits: 10 }, ADMIN_TOKEN);
    const foreign = await call('POST', '/v2/webhooks/deliveries/resend', { jobId: id }, other.body.apiKey);
    expect(foreign.body).toEqual({ success: true, requeued: 0, erased: 0 });
    expect((await call('GET', `/v2/webhooks/deliveries?jobId=${id}`)).body.deliveries[0].status).toBe(
      'failed',
    );

    // Back up: the started event alone first, then the rest; each delivered once more, in order.
    receiver.down.delete('/down');
    const one = await call('POST', '/v2/webhooks/deliveries/resend', {
      jobId: id,
      webhookIds: [failed[0].webhookId],
    });
    expect(one.body).toEqual({ success: true, requeued: 1, erased: 0 });
    await waitForType('/down', 'batch_scrape.started', 4);
    const rest = await call('POST', '/v2/webhooks/deliveries/resend', { jobId: id });
    expect(rest.body).toEqual({ success: true, requeued: 2, erased: 0 });
    const delivered = await logWhen(id, 'delivered', 3);
    expect(delivered.map((d) => d.attempts)).toEqual([4, 4, 4]);
    const resent = deliveriesTo('/down').slice(before);
    expect(resent.map((d) => d.body.type)).toEqual([
      'batch_scrape.started',
      'batch_scrape.page',
      'batch_scrape.completed',
    ]);
    expectWellFormed(resent, id, { run: 'retry' });

    // The operator: every delivery of the team that gave up since a time, whatever the job.
    receiver.down.add('/down-2');
    const since = new Date().toISOString();
    const second = await batch('/down-2');
    await logWhen(second, 'failed', 3);
    receiver.down.delete('/down-2');
    const early = await call(
      'POST',
      `/admin/v1/teams/${stack.team}/webhook-deliveries/resend`,
      { failedUntil: since },
      ADMIN_TOKEN,
    );
    expect(early.body).toEqual({ success: true, requeued: 0, erased: 0 });
    const window = await call(
      'POST',
      `/admin/v1/teams/${stack.team}/webhook-deliveries/resend`,
      { failedSince: since },
      ADMIN_TOKEN,
    );
    expect(window.body).toEqual({ success: true, requeued: 3, erased: 0 });
    await logWhen(second, 'delivered', 3);
    const unknown = await call(
      'POST',
      `/admin/v1/teams/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/webhook-deliveries/resend`,
      {},
      ADMIN_TOKEN,
    );
    expect(unknown.status).toBe(404);
    const wrongWindow = await call(
      'POST',
      `/admin/v1/teams/${stack.team}/webhook-deliveries/resend`,
      { failedSince: since, failedUntil: since },
      ADMIN_TOKEN,
    );
    expect(wrongWindow.status).toBe(400);
    // A team's API key is not the admin token.
    expect((await call('POST', `/admin/v1/teams/${stack.team}/webhook-deliveries/resend`, {})).status).toBe(
      403,
    );
  }, 120_000);
});

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

/** Records every POST with its exact bytes; answers 200. */
async function startReceiver(): Promise<LocalServer & { got: Delivery[] }> {
  const got: Delivery[] = [];
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
      res.writeHead(200).end();
    });
  });
  return { ...server, got };
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
});

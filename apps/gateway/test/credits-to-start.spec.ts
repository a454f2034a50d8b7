import { randomUUID } from 'node:crypto';
import { BATCH_RPC, CRAWL_RPC } from '@wds/contracts';
import {
  BillingStandIn,
  call,
  serveBilling,
  startGateway,
  startStack,
  type TestGateway,
  type TestStack,
} from './harness';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-for-credits-0123456789';
const URL_ = 'https://example.com/';

/**
 * A crawl or batch scrape starts only when the team's balance covers the credits one of its pages
 * holds before it runs (`scrapeEstimate` of its scrape options: 1, +4 when the proxy may be
 * enhanced, +4 per LLM format, +4 per media format): otherwise the job would start and fail at its
 * first page.
 */
describe('gateway: credits needed to start a crawl or batch scrape', () => {
  let stack: TestStack;
  let gw: TestGateway;
  let started = 0;

  beforeAll(async () => {
    stack = await startStack();
    serveBilling(stack);
    stack.messaging.serve(CRAWL_RPC.create, async (req) => {
      started += 1;
      return { id: req.crawlId };
    });
    stack.messaging.serve(BATCH_RPC.create, async (req) => {
      started += 1;
      return { id: req.batchId, added: req.urls.length };
    });
    gw = await startGateway(stack, { WDS_ADMIN_TOKEN: ADMIN });
  });

  afterAll(async () => {
    await gw?.stop();
    await stack?.stop();
  });

  const teamWith = async (credits: number): Promise<string> => {
    const res = await call(gw.url, 'POST', '/admin/v1/teams', {
      token: ADMIN,
      json: { name: `credits-${randomUUID()}`, credits },
    });
    expect(res.status).toBe(201);
    return (res.body as { apiKey: string }).apiKey;
  };
  const crawl = (key: string, formats: unknown[], proxy = 'basic') =>
    call(gw.url, 'POST', '/v2/crawl', {
      token: key,
      json: { url: URL_, scrapeOptions: { formats, proxy } },
    });
  const batch = (key: string, formats: unknown[], proxy = 'basic') =>
    call(gw.url, 'POST', '/v2/batch/scrape', { token: key, json: { urls: [URL_], formats, proxy } });

  it('answers 402 when the balance is below one page with its LLM formats (1 + 4 each), and starts when it covers it', async () => {
    const four = await teamWith(4);
    const before = started;
    for (const res of [await crawl(four, ['summary']), await batch(four, ['markdown', 'summary'])]) {
      expect(res).toMatchObject({ status: 402, body: { success: false, code: 'INSUFFICIENT_CREDITS' } });
      expect(res.body.error).toMatch(/Insufficient credits to start a (crawl|batch scrape)/);
    }
    expect(started).toBe(before);
    // Without an LLM format a page costs 1: the same team may start.
    expect((await crawl(four, ['markdown'])).status).toBe(200);
    expect((await batch(four, ['markdown'])).status).toBe(200);

    const five = await teamWith(5);
    expect((await crawl(five, ['summary'])).status).toBe(200);
    expect((await batch(five, ['summary'])).status).toBe(200);
    // Two LLM formats: 1 + 4 + 4.
    const json = { type: 'json', prompt: 'the price' };
    expect((await crawl(five, ['summary', json])).status).toBe(402);
    expect((await batch(await teamWith(9), ['summary', json])).status).toBe(200);
    // proxy `auto` (the default) may retry through an enhanced proxy: a page holds 5, with summary 9.
    expect((await crawl(five, ['summary'], 'auto')).status).toBe(402);
    expect((await crawl(await teamWith(9), ['summary'], 'auto')).status).toBe(200);
    expect(started).toBe(before + 6);
  });
});

/**
 * A fresh install: the gateway is ready before billing, so the bootstrap team's creation grant
 * fails at start and is retried in the background. The operator's first request must not meet a
 * 402 in that window: it tries the grant at once and waits for it.
 */
describe('gateway: the bootstrap team right after a start where billing came up later', () => {
  const BOOTSTRAP_KEY = 'operator-chosen-bootstrap-key-for-credits';
  let stack: TestStack;
  let gw: TestGateway;

  beforeAll(async () => {
    stack = await startStack();
    stack.messaging.serve(CRAWL_RPC.create, async (req) => ({ id: req.crawlId }));
    // No billing yet: the start's grant attempt finds no responder.
    gw = await startGateway(stack, { WDS_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY, WDS_BOOTSTRAP_CREDITS: '100' });
  });

  afterAll(async () => {
    await gw?.stop();
    await stack?.stop();
  });

  it('its first job start waits for the creation credits instead of answering 402', async () => {
    const billing = new BillingStandIn(stack.messaging);
    expect(billing.grants.size).toBe(0);
    const res = await call(gw.url, 'POST', '/v2/crawl', {
      token: BOOTSTRAP_KEY,
      json: { url: URL_, scrapeOptions: { formats: ['summary'], proxy: 'basic' } },
    });
    expect(res.status).toBe(200);
    expect(billing.grants.size).toBe(1);
    expect([...billing.grants.values()][0]).toMatchObject({ amount: 100 });
  });
});

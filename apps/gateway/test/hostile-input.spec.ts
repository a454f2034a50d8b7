import { randomUUID } from 'node:crypto';
import type { Service } from '@nats-io/services';
import { CRAWL_RPC, SERVICE_KINDS } from '@wds/contracts';
import { registerInstance } from '@wds/service-kit';
import { BillingStandIn, call, startGateway, startStack, type TestGateway, type TestStack } from './harness';

jest.setTimeout(60_000);

const KEY = 'hostile-input-bootstrap-key';

/**
 * Input a hostile tenant (or an SDK) sends at the contract boundary: each is answered with a clear
 * 4xx in the envelope before anything is fetched, stored or dispatched, or accepted when an
 * official SDK sends it.
 */
describe('gateway contract boundary', () => {
  let stack: TestStack;
  let gw: TestGateway;
  const created: unknown[] = [];

  beforeAll(async () => {
    stack = await startStack();
    new BillingStandIn(stack.messaging);
    stack.messaging.serve(CRAWL_RPC.create, async (req) => {
      created.push(req);
      return { id: randomUUID() };
    });
    stack.messaging.serve(CRAWL_RPC.cancel, async () => ({ status: 'cancelled' as const }));
    gw = await startGateway(stack, { WDS_BOOTSTRAP_API_KEY: KEY });
  });

  afterAll(async () => {
    await gw?.stop();
    await stack?.stop();
  });

  async function expectRefused(body: unknown, status: number, message: RegExp, route = '/v2/scrape') {
    const before = created.length;
    const res = await call(gw.url, 'POST', route, { token: KEY, json: body });
    expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { success: false } });
    expect(res.body.error).toMatch(message);
    expect(res.body.code).toBeDefined();
    expect(created.length).toBe(before);
  }

  it.each([
    ['a header name with a space', { headers: { 'bad key': 'x' } }, /headers.*invalid header name "bad key"/],
    ['an empty header name', { headers: { '': 'x' } }, /must not be empty/],
    ['a non-ASCII header name', { headers: { 'x-ümlaut': 'x' } }, /invalid header name/],
    ['a header value with CR LF', { headers: { 'x-a': 'a\r\nx-b: c' } }, /invalid value of header x-a/],
    ['a framing header', { headers: { 'Transfer-Encoding': 'chunked' } }, /set by the client itself/],
    ['an invalid language tag', { location: { country: 'US', languages: ['!!'] } }, /languages.*BCP 47/],
    ['a huge minAge', { minAge: 9_007_199_254_740_991 }, /minAge/],
    ['a bad CSS selector', { includeTags: ['div[[['] }, /Unsupported CSS selector/],
    ['a NUL in the URL', { url: 'https://example.com/a\u0000b' }, /url: NUL characters/],
  ])('refuses %s on scrape', async (_name, extra, message) => {
    await expectRefused({ url: 'https://example.com', ...extra }, 400, message);
  });

  it('refuses a host name that cannot exist (over 253 characters, a label over 63) on every URL route', async () => {
    const longHost = `http://${Array(5).fill('a'.repeat(63)).join('.')}.com/`;
    const longLabel = `https://${'b'.repeat(64)}.example.com/`;
    const cannotExist = /^url: Invalid URL: the host name cannot exist/;
    for (const route of ['/v2/scrape', '/v2/crawl', '/v2/map']) {
      await expectRefused({ url: longHost }, 400, cannotExist, route);
      await expectRefused({ url: longLabel }, 400, cannotExist, route);
    }
    await expectRefused(
      { url: 'https://example.com', webhook: { url: longHost } },
      400,
      /webhook.*host name cannot exist/,
      '/v2/crawl',
    );
  });

  it('refuses invalid webhook headers and a NUL in webhook metadata on crawl', async () => {
    const base = { url: 'https://example.com' };
    await expectRefused(
      { ...base, webhook: { url: 'https://hooks.example.com', headers: { 'bad key': 'x' } } },
      400,
      /webhook.*invalid header name/,
      '/v2/crawl',
    );
    await expectRefused(
      { ...base, webhook: { url: 'https://hooks.example.com', metadata: { note: 'a\u0000' } } },
      400,
      /webhook\.metadata\.note: NUL/,
      '/v2/crawl',
    );
    await expectRefused({ ...base, includePaths: ['/a\u0000'] }, 400, /includePaths\[0\]: NUL/, '/v2/crawl');
  });

  it('refuses patterns the linear-time engine cannot run, accepts the catastrophic ones it can', async () => {
    await expectRefused({ url: 'https://example.com', includePaths: ['(a)\\1'] }, 400, /RE2/, '/v2/crawl');
    const ok = await call(gw.url, 'POST', '/v2/crawl', {
      token: KEY,
      json: { url: 'https://example.com', includePaths: ['(a+)+$'], limit: 1 },
    });
    expect(ok.status).toBe(200);
  });

  it('refuses a JSON schema over 64 KiB on scrape, extract and agent (compiling it would hold the service)', async () => {
    const properties = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`field_${i}`, { type: 'string' }]),
    );
    const schema = { type: 'object', properties };
    expect(JSON.stringify(schema).length).toBeGreaterThan(64 * 1024);
    const tooLarge = /a JSON schema is at most 64 KiB/;
    await expectRefused({ url: 'https://example.com', formats: [{ type: 'json', schema }] }, 400, tooLarge);
    await expectRefused({ urls: ['https://example.com'], schema }, 400, tooLarge, '/v2/extract');
    await expectRefused({ prompt: 'find the price', schema }, 400, tooLarge, '/v2/agent');
  });

  it('bounds delay so a crawl can finish within the watchdog limits', async () => {
    await expectRefused({ url: 'https://example.com', delay: 1801 }, 400, /delay/, '/v2/crawl');
  });

  it('accepts what firecrawl-py 4.55 sends: fastMode, and DELETE with an empty JSON body', async () => {
    const res = await call(gw.url, 'POST', '/v2/crawl', {
      token: KEY,
      json: {
        url: 'https://example.com',
        scrapeOptions: { onlyMainContent: true, fastMode: false, formats: ['markdown'], maxAge: 14400000 },
        limit: 5,
        origin: 'python-sdk@4.55.0',
      },
    });
    expect(res.status).toBe(200);
    const cancel = await call(gw.url, 'DELETE', `/v2/crawl/${res.body.id}`, {
      token: KEY,
      raw: '',
      contentType: 'application/json',
    });
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ status: 'cancelled' });
  });

  it('answers 413, 414 and 415 in the envelope', async () => {
    const huge = await call(gw.url, 'POST', '/v2/scrape', {
      token: KEY,
      raw: JSON.stringify({ url: 'https://example.com', pad: 'x'.repeat(9 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });

    const long = await call(gw.url, 'GET', `/v2/crawl/${'a'.repeat(9000)}`, { token: KEY });
    expect(long.status).toBe(414);
    expect(long.body).toMatchObject({ success: false, code: 'URI_TOO_LONG' });

    const form = await call(gw.url, 'POST', '/v2/scrape', {
      token: KEY,
      raw: 'url=https%3A%2F%2Fexample.com',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('takes the largest valid batch body (the body limit follows the batch schema)', async () => {
    // 10,000 URLs of 2,048 characters: valid by the schema, ~20 MB of JSON.
    const url = `https://example.com/${'p'.repeat(2048 - 'https://example.com/'.length)}`;
    const urls = Array.from({ length: 10_000 }, (_, i) => url.slice(0, -6) + String(i).padStart(6, '0'));
    const res = await call(gw.url, 'POST', '/v2/batch/scrape', {
      token: KEY,
      json: { urls, formats: ['markdown'], zeroDataRetention: 'not-a-boolean' },
    });
    // Parsed and validated (the deliberate type error answers), not refused for its size.
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/zeroDataRetention/);
  });

  it('refuses NUL in a path parameter', async () => {
    const res = await call(gw.url, 'GET', '/v2/crawl/abc%00def', { token: KEY });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
  });

  it('reports what an instance says is wrong with itself (a wedged deliverer) in /health', async () => {
    let wedged = false;
    const fakes: Service[] = [];
    try {
      for (const kind of SERVICE_KINDS.filter((k) => k !== 'gateway')) {
        fakes.push(
          await registerInstance(stack.messaging, {
            kind,
            instanceId: `fake-${kind}`,
            version: '0.0.0',
            healthUrl: 'http://x',
            problems: () =>
              kind === 'webhooks' && wedged ? ['delivery: 3 attempts past their deadline'] : [],
          }),
        );
      }
      const until = async (status: number) => {
        let res = await call(gw.url, 'GET', '/health');
        for (let i = 0; i < 5 && res.status !== status; i++) res = await call(gw.url, 'GET', '/health');
        return res;
      };
      expect((await until(200)).body).toMatchObject({ status: 'ok', problems: [] });
      wedged = true;
      const bad = await until(503);
      expect(bad.status).toBe(503);
      expect(bad.body).toMatchObject({
        status: 'degraded',
        missing: [],
        problems: ['webhooks: delivery: 3 attempts past their deadline'],
      });
    } finally {
      for (const f of fakes) await f.stop();
    }
  });
});

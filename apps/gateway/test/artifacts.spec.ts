import { randomUUID } from 'node:crypto';
import { Objm } from '@nats-io/obj';
import { ARTIFACTS_BUCKET, RPC, ServiceError, artifactUrl } from '@wds/contracts';
import { BillingStandIn, call, startGateway, startStack, type TestGateway, type TestStack } from './harness';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-for-artifacts-0123456789';
const SECRET = 'artifact-url-secret-for-tests-0123456789';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe('gateway: browser scrapes and their artifacts', () => {
  let stack: TestStack;
  let gw: TestGateway;
  const teams: { teamId: string; apiKey: string }[] = [];
  const ids: Record<string, string> = {};
  const reports: { usage: unknown[]; close: boolean }[] = [];

  beforeAll(async () => {
    stack = await startStack();
    new BillingStandIn(stack.messaging);
    // Billing as for a small balance: a block holds exactly one request's credits.
    stack.messaging.serve(RPC.creditsBlockTake, async (req) => ({
      reservationId: randomUUID(),
      granted: req.minimum,
      balance: 100 - req.minimum,
      expiresAt: Date.now() + 120_000,
    }));
    stack.messaging.serve(RPC.creditsUsageReport, async (req) => {
      reports.push({ usage: req.usage, close: req.close });
      return { recorded: 0, used: 0, open: !req.close, expiresAt: Date.now() + 120_000 };
    });
    // A scraper whose every browser-pool replica stays full.
    stack.messaging.serve(RPC.scrapeRun, async () => {
      throw new ServiceError('CONCURRENCY_LIMITED', 'Every browser is busy; retry later', undefined, 2);
    });
    gw = await startGateway(stack, { WDS_ADMIN_TOKEN: ADMIN, WDS_ARTIFACT_URL_SECRET: SECRET });
    for (const name of ['owner', 'other']) {
      const res = await call(gw.url, 'POST', '/admin/v1/teams', { token: ADMIN, json: { name } });
      expect(res.status).toBe(201);
      teams.push(res.body);
    }
    // As the browser-pool stores them: one object per artifact, the owner in its metadata.
    const store = await new Objm(stack.messaging.js).create(ARTIFACTS_BUCKET);
    for (const kind of ['screenshot', 'content']) {
      ids[kind] = randomUUID();
      await store.putBlob(
        { name: ids[kind], metadata: { teamId: teams[0].teamId, kind, contentType: 'image/png' } },
        new Uint8Array(PNG),
      );
    }
  });
  afterAll(async () => {
    await gw?.stop();
    await stack?.stop();
  });

  it('serves a screenshot to the owning team with its content type', async () => {
    const res = await fetch(`${gw.url}/v2/artifacts/${ids.screenshot}`, {
      headers: { authorization: `Bearer ${teams[0].apiKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toMatch(/private/);
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('answers 403 to another team, 401 without a key, 404 for unknown or internal artifacts', async () => {
    const other = await call(gw.url, 'GET', `/v2/artifacts/${ids.screenshot}`, { token: teams[1].apiKey });
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    expect((await call(gw.url, 'GET', `/v2/artifacts/${ids.screenshot}`)).status).toBe(401);
    expect(
      (await call(gw.url, 'GET', `/v2/artifacts/${randomUUID()}`, { token: teams[0].apiKey })).status,
    ).toBe(404);
    expect(
      (await call(gw.url, 'GET', `/v2/artifacts/${ids.content}`, { token: teams[0].apiKey })).status,
    ).toBe(404);
    expect((await call(gw.url, 'GET', '/v2/artifacts/not-a-uuid', { token: teams[0].apiKey })).status).toBe(
      400,
    );
  });

  it('passes browser features to the scraper and answers 429 with Retry-After when every browser is busy', async () => {
    const res = await call(gw.url, 'POST', '/v2/scrape', {
      token: teams[0].apiKey,
      json: {
        url: 'https://example.com',
        formats: ['screenshot'],
        actions: [{ type: 'wait', milliseconds: 10 }],
      },
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.body).toMatchObject({ success: false, code: 'CONCURRENCY_LIMITED' });
    // Nothing charged: the block is closed with no usage.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reports).toEqual([{ usage: [], close: true }]);
    // LLM formats go to the scraper too (it owns the LLM provider and refuses them without one):
    // this suite's scraper answers every request "browsers busy".
    const llm = await call(gw.url, 'POST', '/v2/scrape', {
      token: teams[0].apiKey,
      json: { url: 'https://example.com', formats: ['summary'] },
    });
    expect(llm.status).toBe(429);
  });

  it('serves a signed capability URL without the API key, until it expires or the secret is rotated', async () => {
    const signing = { secret: SECRET, ttlMs: 24 * 3600 * 1000 };
    const url = artifactUrl(gw.url, ids.screenshot, signing);
    expect(url).toMatch(/\?expires=\d+&signature=[\w-]+$/);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);

    // Expired, tampered with, or for another artifact: refused; internal kinds stay hidden.
    const old = new URL(artifactUrl(gw.url, ids.screenshot, signing, Date.now() - 25 * 3600 * 1000));
    const expired = await call(gw.url, 'GET', old.pathname + old.search);
    expect(expired.status).toBe(403);
    expect(expired.body.error).toMatch(/expired/);
    const q = new URL(url).search;
    const later = q.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 3600}`);
    expect((await call(gw.url, 'GET', `/v2/artifacts/${ids.screenshot}${later}`)).status).toBe(403);
    expect((await call(gw.url, 'GET', `/v2/artifacts/${randomUUID()}${q}`)).status).toBe(403);
    const internal = new URL(artifactUrl(gw.url, ids.content, signing));
    expect((await call(gw.url, 'GET', internal.pathname + internal.search)).status).toBe(404);

    // Another gateway with a rotated secret: every URL handed out so far stops working.
    const rotated = await startGateway(stack, { WDS_ARTIFACT_URL_SECRET: `${SECRET}-rotated` });
    try {
      const revoked = await call(rotated.url, 'GET', `/v2/artifacts/${ids.screenshot}${q}`);
      expect(revoked.status).toBe(403);
      expect(revoked.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
      // The API key still opens it.
      expect(
        (await call(rotated.url, 'GET', `/v2/artifacts/${ids.screenshot}`, { token: teams[0].apiKey })).status,
      ).toBe(200);
    } finally {
      await rotated.stop();
    }
  });
});

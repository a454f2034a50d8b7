import { randomUUID } from 'node:crypto';
import { RPC, type WebhookDeliveriesListRequest } from '@wds/contracts';
import { BillingStandIn, call, startGateway, startStack, type TestGateway, type TestStack } from './harness';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-for-tests-0123456789';
const KEY = 'webhooks-suite-bootstrap-key';

describe('gateway webhooks: team secrets for the webhooks service, delivery log for teams', () => {
  let stack: TestStack;
  let gw: TestGateway;
  const listRequests: WebhookDeliveriesListRequest[] = [];

  beforeAll(async () => {
    stack = await startStack();
    new BillingStandIn(stack.messaging);
    // Stand-in for the webhooks service's delivery-log RPC: echoes what the gateway asked for.
    stack.messaging.serve(RPC.webhookDeliveriesList, async (req) => {
      listRequests.push(req);
      return {
        deliveries: [
          {
            webhookId: randomUUID(),
            type: 'crawl.started' as const,
            url: 'https://hooks.example.com/in',
            status: 'delivered' as const,
            attempts: 1,
            lastStatusCode: 200,
            lastError: null,
            createdAt: new Date(0).toISOString(),
            deliveredAt: new Date(1000).toISOString(),
            nextAttemptAt: null,
            history: [
              { attempt: 1, at: new Date(1000).toISOString(), statusCode: 200, error: null, durationMs: 12 },
            ],
          },
        ],
        nextCursor: null,
      };
    });
    gw = await startGateway(stack, {
      WDS_ADMIN_TOKEN: ADMIN,
      WDS_BOOTSTRAP_API_KEY: KEY,
      WDS_BOOTSTRAP_WEBHOOK_SECRET: 'bootstrap-secret',
    });
  });

  afterAll(async () => {
    await gw?.stop();
    await stack?.stop();
  });

  it('answers a team webhook secret as set by the bootstrap and the admin API', async () => {
    const { rows } = await gw.running.database.query<{ id: string }>(
      'SELECT id FROM gateway.teams WHERE is_bootstrap',
    );
    expect(await stack.messaging.request(RPC.webhookSecret, { teamId: rows[0].id })).toEqual({
      secret: 'bootstrap-secret',
    });

    const created = await call(gw.url, 'POST', '/admin/v1/teams', { token: ADMIN, json: { name: 'hooks' } });
    const teamId: string = created.body.teamId;
    expect(await stack.messaging.request(RPC.webhookSecret, { teamId })).toEqual({ secret: null });
    const put = await call(gw.url, 'PUT', `/admin/v1/teams/${teamId}/webhook-secret`, {
      token: ADMIN,
      json: { secret: 'new-secret' },
    });
    expect(put.status).toBe(200);
    expect(await stack.messaging.request(RPC.webhookSecret, { teamId })).toEqual({ secret: 'new-secret' });
    expect(await stack.messaging.request(RPC.webhookSecret, { teamId: 'not-a-team' })).toEqual({
      secret: null,
    });
  });

  it("serves GET /v2/webhooks/deliveries for the caller's team only", async () => {
    const jobId = randomUUID();
    const res = await call(gw.url, 'GET', `/v2/webhooks/deliveries?jobId=${jobId}&limit=5&cursor=1.0.9`, {
      token: KEY,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      nextCursor: null,
      deliveries: [{ type: 'crawl.started', status: 'delivered', history: [{ statusCode: 200 }] }],
    });
    const { rows } = await gw.running.database.query<{ id: string }>(
      'SELECT id FROM gateway.teams WHERE is_bootstrap',
    );
    expect(listRequests.at(-1)).toEqual({ teamId: rows[0].id, jobId, limit: 5, cursor: '1.0.9' });
  });

  it('validates the query and requires an API key', async () => {
    const missing = await call(gw.url, 'GET', '/v2/webhooks/deliveries', { token: KEY });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('jobId');
    const bad = await call(gw.url, 'GET', '/v2/webhooks/deliveries?jobId=x', { token: KEY });
    expect(bad.status).toBe(400);
    expect((await call(gw.url, 'GET', `/v2/webhooks/deliveries?jobId=${randomUUID()}`)).status).toBe(401);
  });
});

import { randomUUID } from 'node:crypto';
import { DOCS_SEARCH_RPC, ServiceError, type DocsAskRequest } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { call, serveBilling, startGateway, startStack, type TestGateway, type TestStack } from './harness';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-for-docs-search-0123456789';

/**
 * POST /v2/support/docs-search at the gateway: validation, the per-team question budget, and the
 * answers when no docs-search replica is reachable (503) or none answers in time (504). A stand-in
 * replica serves the RPC on the suite's real NATS.
 */
describe('gateway: docs search', () => {
  let stack: TestStack;
  let gw: TestGateway;
  let replica: Messaging | undefined;
  const asked: DocsAskRequest[] = [];
  let delayMs = 0;
  let unavailable = false;

  const startReplica = async () => {
    replica = await Messaging.connect({
      servers: stack.natsUrl,
      name: 'docs-search-stand-in',
      logger: createLogger({ service: 'docs-test', level: 'silent' }),
    });
    replica.serve(DOCS_SEARCH_RPC.ask, async (req) => {
      asked.push(req);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (unavailable) throw new ServiceError('SERVICE_UNAVAILABLE', 'the passage index is not reachable');
      return {
        requestId: req.requestId,
        answer: 'Retries follow the schedule [1].',
        evidence: [{ pathOrUrl: 'docs/webhooks.md#retry-schedule', reason: 'lists the waits' }],
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        durationMs: 3,
      };
    });
  };

  beforeAll(async () => {
    stack = await startStack();
    serveBilling(stack);
    gw = await startGateway(stack, {
      WDS_ADMIN_TOKEN: ADMIN,
      WDS_DOCS_SEARCH_RATE_PER_MINUTE: '4',
      WDS_DOCS_SEARCH_TIMEOUT_MS: '1500',
    });
  });

  afterAll(async () => {
    await replica?.drain();
    await gw?.stop();
    await stack?.stop();
  });

  const newKey = async () => {
    const res = await call(gw.url, 'POST', '/admin/v1/teams', {
      token: ADMIN,
      json: { name: `docs-${randomUUID()}`, credits: 100 },
    });
    expect(res.status).toBe(201);
    return res.body as { teamId: string; apiKey: string };
  };
  const ask = (key: string | undefined, json: unknown) =>
    call(gw.url, 'POST', '/v2/support/docs-search', { token: key, json });

  it('answers 503 support_agent_unavailable when no docs-search replica is reachable', async () => {
    const { apiKey } = await newKey();
    const res = await ask(apiKey, { question: 'How are webhooks retried?' });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      success: false,
      error: 'support_agent_unavailable',
      code: 'SERVICE_UNAVAILABLE',
    });
  });

  it("relays a replica's answer with the request id and the team, and validates the question", async () => {
    await startReplica();
    const { teamId, apiKey } = await newKey();
    const res = await ask(apiKey, { question: '  How are webhooks retried?  ' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      answer: 'Retries follow the schedule [1].',
      evidence: [{ pathOrUrl: 'docs/webhooks.md#retry-schedule', reason: 'lists the waits' }],
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    });
    const req = asked.at(-1)!;
    expect(req).toMatchObject({ teamId, question: 'How are webhooks retried?' });
    expect(res.body.requestId).toBe(req.requestId);
    expect(res.headers.get('x-request-id')).toBe(req.requestId);

    const before = asked.length;
    for (const body of [
      {},
      { question: '' },
      { question: '   ' },
      { question: 'x'.repeat(2001) },
      { question: 42 },
    ]) {
      const bad = await ask(apiKey, body);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    }
    expect((await ask(undefined, { question: 'hello?' })).status).toBe(401);
    expect(asked.length).toBe(before);
    expect((await ask(apiKey, { question: 'x'.repeat(2000) })).status).toBe(200);
  });

  it("limits each team's questions per minute without touching another team's budget", async () => {
    const a = await newKey();
    const b = await newKey();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await ask(a.apiKey, { question: `question ${i}?` })).status);
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(statuses.slice(4)).toEqual([429, 429]);
    const limited = await ask(a.apiKey, { question: 'one more?' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await ask(b.apiKey, { question: 'mine?' })).status).toBe(200);
  });

  it("names a replica's own 503 as its answer, not as no replica reachable", async () => {
    const { apiKey } = await newKey();
    unavailable = true;
    try {
      const res = await ask(apiKey, { question: 'Is the index up?' });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        success: false,
        error: 'support_agent_unavailable',
        code: 'SERVICE_UNAVAILABLE',
        details: { reason: 'the docs-search service answered: the passage index is not reachable' },
      });
    } finally {
      unavailable = false;
    }
  });

  it('answers 504 support_agent_timeout when the replica does not answer in time', async () => {
    const { apiKey } = await newKey();
    delayMs = 3000;
    try {
      const res = await ask(apiKey, { question: 'A slow question?' });
      expect(res.status).toBe(504);
      expect(res.body).toMatchObject({
        success: false,
        error: 'support_agent_timeout',
        code: 'UPSTREAM_TIMEOUT',
      });
      // The deadline the replica was given is the gateway's own.
      const req = asked.at(-1)!;
      expect(req.deadline).toBeGreaterThan(Date.now() - 10_000);
    } finally {
      delayMs = 0;
    }
  });
});

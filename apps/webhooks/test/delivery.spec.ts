import { createHmac, randomUUID } from 'node:crypto';
import { EVENTS, RPC, type JobEventInput } from '@wds/contracts';
import { Receiver } from './support/receiver';
import { WebhooksStack, jobEvent } from './support/webhooks-harness';

jest.setTimeout(30_000);

/** How a receiver verifies a delivery, as docs/webhooks.md tells users to. */
function verify(secret: string, raw: Buffer, header: string | string[] | undefined): boolean {
  const expected = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  return header === expected;
}

describe('webhooks service: delivery', () => {
  let stack: WebhooksStack;
  let receiver: Receiver;
  const team = 'team-signed';
  const secret = 'whsec-test-0123456789';

  beforeAll(async () => {
    receiver = await Receiver.start();
    stack = await WebhooksStack.start();
    stack.secrets.set(team, secret);
    // Any loopback port: the tests also use a second receiver and a closed port.
    await stack.startService({
      WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1',
      WDS_WEBHOOK_PER_DESTINATION_CONCURRENCY: '2',
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  const hook = (path: string, extra: Partial<Exclude<JobEventInput['webhook'], undefined>> = {}) => ({
    url: `${receiver.url}${path}`,
    ...extra,
  });

  it('signs the exact raw bytes, sends the spec body with metadata and custom headers', async () => {
    const jobId = randomUUID();
    const event = jobEvent(
      jobId,
      team,
      'crawl.page',
      hook('/signed', {
        headers: { 'X-Receiver-Token': 'abc', 'Content-Type': 'text/plain' },
        metadata: { run: 7, tag: 'é✓' },
      }),
      { success: false, error: 'page failed: HTTP 500' },
    );
    await stack.publish(event);

    const [got] = await receiver.waitFor('/signed', 1);
    expect(verify(secret, got.raw, got.headers['x-service-signature'])).toBe(true);
    // Any other byte sequence for the same JSON value does not verify.
    const reserialised = Buffer.from(JSON.stringify(got.body, null, 2));
    expect(verify(secret, reserialised, got.headers['x-service-signature'])).toBe(false);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/^WDS-Webhooks\//);
    expect(got.headers['x-receiver-token']).toBe('abc');
    expect(got.body).toEqual({
      success: false,
      type: 'crawl.page',
      id: jobId,
      webhookId: event.webhookId,
      data: event.data,
      metadata: { run: 7, tag: 'é✓' },
      error: 'page failed: HTTP 500',
    });

    const [entry] = await stack.waitForLog(team, jobId, (d) => d[0]?.status === 'delivered');
    expect(entry).toMatchObject({
      webhookId: event.webhookId,
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
    });
    expect(entry.history).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200, error: null })]);
  });

  it('sends no signature header for a team without a secret', async () => {
    const jobId = randomUUID();
    await stack.publish(jobEvent(jobId, 'team-unsigned', 'batch_scrape.started', hook('/unsigned')));
    const [got] = await receiver.waitFor('/unsigned', 1);
    expect(got.headers['x-service-signature']).toBeUndefined();
    expect(got.body).toMatchObject({ type: 'batch_scrape.started', id: jobId, data: [] });
  });

  it.each([
    ['crawl', ['crawl.started', 'crawl.page', 'crawl.completed']],
    ['batch_scrape', ['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.completed']],
  ] as const)(
    'delivers %s events started < pages < completed although they arrive in reverse',
    async (kind, [started, page, completed]) => {
      const jobId = randomUUID();
      const path = `/order-${kind}`;
      // The started event fails once: pages must wait for its retry, completed for every page.
      receiver.on(path, (_n, req) =>
        req.body?.type === started && receiver.at(path).length === 1 ? 500 : 200,
      );
      const webhook = hook(path, { metadata: { job: kind } });
      const events = [
        jobEvent(jobId, team, started, webhook),
        jobEvent(jobId, team, page, webhook),
        jobEvent(jobId, team, page, webhook),
        jobEvent(jobId, team, page, webhook),
        jobEvent(jobId, team, completed, webhook),
      ];
      for (const e of [...events].reverse()) await stack.publish(e);

      const got = await receiver.waitFor(path, 6);
      const types = got.map((r) => r.body.type);
      expect(types[0]).toBe(started);
      expect(types[1]).toBe(started);
      expect(types.slice(2, 5)).toEqual([page, page, page]);
      expect(types[5]).toBe(completed);
      expect(got[0].body.webhookId).toBe(got[1].body.webhookId);
      expect(new Set(got.slice(1).map((r) => r.body.webhookId))).toEqual(
        new Set(events.map((e) => e.webhookId)),
      );
      for (const r of got) expect(r.body.metadata).toEqual({ job: kind });
    },
  );

  it('delivers crawl.failed and batch_scrape.failed after the pages', async () => {
    for (const [page, failed] of [
      ['crawl.page', 'crawl.failed'],
      ['batch_scrape.page', 'batch_scrape.failed'],
    ] as const) {
      const jobId = randomUUID();
      const path = `/failed-${failed}`;
      receiver.on(path, (n) => (n === 0 ? 503 : 200));
      await stack.publish(jobEvent(jobId, team, failed, hook(path), { success: false }));
      await stack.publish(jobEvent(jobId, team, page, hook(path)));
      const got = await receiver.waitFor(path, 3);
      expect(got.map((r) => r.body.type)).toEqual([page, page, failed]);
      expect(got[2].body.success).toBe(false);
    }
  });

  it('delivers only the events the filter asks for', async () => {
    const jobId = randomUUID();
    const webhook = hook('/filtered', { events: ['completed', 'failed'] });
    await stack.publish(jobEvent(jobId, team, 'crawl.started', webhook));
    await stack.publish(jobEvent(jobId, team, 'crawl.page', webhook));
    await stack.publish(jobEvent(jobId, team, 'crawl.completed', webhook));
    await stack.publish(jobEvent(randomUUID(), team, 'crawl.completed', undefined));
    const got = await receiver.waitFor('/filtered', 1);
    await stack.eventsHandled();
    expect(receiver.at('/filtered').map((r) => r.body.type)).toEqual(['crawl.completed']);
    expect(got[0].body.id).toBe(jobId);
    expect((await stack.log(team, jobId)).deliveries).toHaveLength(1);
  });

  it('retries after 500s and a timeout with the same webhookId and the same bytes', async () => {
    const jobId = randomUUID();
    receiver.on('/flaky', (n) => (n < 2 ? 500 : n === 2 ? 'hang' : 204));
    const event = jobEvent(jobId, team, 'crawl.page', hook('/flaky'));
    await stack.publish(event);
    // A redelivered stream message (same webhookId) is recorded once.
    await stack.client.publish(EVENTS.job, event);

    const got = await receiver.waitFor('/flaky', 4);
    expect(new Set(got.map((r) => r.body.webhookId))).toEqual(new Set([event.webhookId]));
    expect(new Set(got.map((r) => r.raw.toString('base64'))).size).toBe(1);
    expect(new Set(got.map((r) => r.headers['x-service-signature'])).size).toBe(1);
    // The first back-off step (100 ms) separates the first two attempts.
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(90);

    const [entry] = await stack.waitForLog(team, jobId, (d) => d[0]?.status === 'delivered');
    expect(entry.attempts).toBe(4);
    expect(entry.lastStatusCode).toBe(204);
    expect(entry.history.map((h) => h.statusCode)).toEqual([500, 500, null, 204]);
    expect(entry.history[0].error).toBe('receiver answered HTTP 500');
    expect(entry.history[2].error).toMatch(/timed out after 400 ms/);
    // Both copies of the event handled and the delivery final: no attempt can follow.
    await stack.eventsHandled();
    expect(receiver.at('/flaky')).toHaveLength(4);
  });

  it('gives up after the schedule when the receiver stays down, and the log says so', async () => {
    const jobId = randomUUID();
    receiver.on('/down', () => 503);
    const started = Date.now();
    await stack.publish(jobEvent(jobId, team, 'crawl.started', hook('/down')));
    await stack.publish(jobEvent(jobId, team, 'crawl.page', hook('/down')));

    const log = await stack.waitForLog(
      team,
      jobId,
      (d) => d.length === 2 && d.every((x) => x.status === 'failed'),
    );
    // Schedule 100+200+300 ms: four attempts each, the page only after the started event gave up.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
    for (const entry of log) {
      expect(entry).toMatchObject({
        status: 'failed',
        attempts: 4,
        lastStatusCode: 503,
        lastError: 'gave up after 4 attempts: receiver answered HTTP 503',
        nextAttemptAt: null,
        deliveredAt: null,
      });
      expect(entry.history).toHaveLength(4);
    }
    expect(receiver.at('/down')).toHaveLength(8);
    const firstPage = receiver.at('/down').findIndex((r) => r.body.type === 'crawl.page');
    expect(firstPage).toBe(4);
  });

  it('sends given-up deliveries again when re-queued: a fresh schedule, the history goes on, only the team’s own, in job order', async () => {
    const jobId = randomUUID();
    receiver.on('/back', () => 503);
    const webhook = hook('/back');
    const events = [
      jobEvent(jobId, team, 'crawl.started', webhook),
      jobEvent(jobId, team, 'crawl.page', webhook),
      jobEvent(jobId, team, 'crawl.completed', webhook),
    ];
    for (const e of events) await stack.publish(e);
    await stack.waitForLog(team, jobId, (d) => d.length === 3 && d.every((x) => x.status === 'failed'));
    expect(receiver.at('/back')).toHaveLength(12);

    // Nothing of another team's, and nothing that is not failed, is touched.
    expect(await stack.client.request(RPC.webhookDeliveriesRequeue, { teamId: 'team-other', jobId })).toEqual(
      {
        requeued: 0,
        erased: 0,
      },
    );
    // The receiver is back after failing once more: the re-queued deliveries retry on a fresh
    // schedule (four attempts again), and the job's order holds among them.
    receiver.on('/back', (n) => (n === 12 ? 500 : 200));
    const one = await stack.client.request(RPC.webhookDeliveriesRequeue, {
      teamId: team,
      jobId,
      webhookIds: [events[0].webhookId],
    });
    expect(one).toEqual({ requeued: 1, erased: 0 });
    const [first] = await stack.waitForLog(team, jobId, (d) => d[0]?.status === 'delivered');
    expect(first).toMatchObject({ attempts: 6, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    expect(first.history.map((h) => [h.attempt, h.statusCode])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
      [4, 503],
      [5, 500],
      [6, 200],
    ]);
    const rest = await stack.client.request(RPC.webhookDeliveriesRequeue, { teamId: team, jobId });
    expect(rest).toEqual({ requeued: 2, erased: 0 });
    const log = await stack.waitForLog(team, jobId, (d) => d.every((x) => x.status === 'delivered'));
    expect(log.map((d) => d.attempts)).toEqual([6, 5, 5]);
    const resent = receiver.at('/back').slice(12);
    expect(resent.map((r) => r.body.type)).toEqual([
      'crawl.started',
      'crawl.started',
      'crawl.page',
      'crawl.completed',
    ]);
    // The same event, byte for byte, under the same webhookId, signed with the team's secret.
    expect(resent[3].body.webhookId).toBe(events[2].webhookId);
    expect(verify(secret, resent[3].raw, resent[3].headers['x-service-signature'])).toBe(true);
    // Delivered now: a second re-queue finds nothing to send.
    expect(await stack.client.request(RPC.webhookDeliveriesRequeue, { teamId: team, jobId })).toEqual({
      requeued: 0,
      erased: 0,
    });
  });

  it('gives up again after a fresh schedule, saying how many attempts it made in all', async () => {
    const jobId = randomUUID();
    receiver.on('/never', () => 503);
    await stack.publish(jobEvent(jobId, team, 'crawl.completed', hook('/never')));
    await stack.waitForLog(team, jobId, (d) => d[0]?.status === 'failed');
    const since = new Date(Date.now() - 600_000).toISOString();
    // By when it gave up (the admin re-queue's window): not before `since`… nor after now.
    expect(
      await stack.client.request(RPC.webhookDeliveriesRequeue, { teamId: team, failedUntil: since }),
    ).toEqual({ requeued: 0, erased: 0 });
    const again = await stack.client.request(RPC.webhookDeliveriesRequeue, {
      teamId: team,
      jobId,
      failedSince: since,
    });
    expect(again).toEqual({ requeued: 1, erased: 0 });
    const [entry] = await stack.waitForLog(
      team,
      jobId,
      (d) => d[0]?.status === 'failed' && d[0].attempts === 8,
    );
    expect(entry.lastError).toBe(
      'gave up after 4 attempts since it was re-queued (8 in all): receiver answered HTTP 503',
    );
    expect(receiver.at('/never')).toHaveLength(8);
  });

  it('counts a refused connection as a failed attempt', async () => {
    const dead = await Receiver.start();
    await dead.close();
    const jobId = randomUUID();
    await stack.publish(jobEvent(jobId, team, 'crawl.completed', { url: `${dead.url}/gone` }));
    const [entry] = await stack.waitForLog(team, jobId, (d) => d[0]?.status === 'failed');
    expect(entry.attempts).toBe(4);
    expect(entry.lastStatusCode).toBeNull();
    expect(entry.lastError).toMatch(/^gave up after 4 attempts: .*refused/i);
  });

  it('keeps a hanging receiver to its per-destination cap while another destination is served', async () => {
    // A stack of its own whose attempts outlast the test (no timeout frees a slot): what is shown
    // is the order of events, not how fast they come on a loaded machine.
    const own = await WebhooksStack.start();
    const other = await Receiver.start();
    try {
      own.secrets.set(team, secret);
      await own.startService({
        WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1',
        WDS_WEBHOOK_PER_DESTINATION_CONCURRENCY: '2',
        WDS_WEBHOOK_TIMEOUT_MS: '120000',
      });
      receiver.on('/hangs', () => 'hang');
      for (let i = 0; i < 8; i++) {
        await own.publish(jobEvent(randomUUID(), team, 'crawl.page', hook('/hangs')));
      }
      await receiver.waitFor('/hangs', 2);
      // A started event is not held by the settle delay.
      await own.publish(jobEvent(randomUUID(), team, 'crawl.started', { url: `${other.url}/fast` }));
      await other.waitFor('/fast', 1);
      // Served while both of the hanging destination's slots are still held, and no third attempt
      // went to it meanwhile.
      expect(receiver.openAt('/hangs')).toBe(2);
      expect(receiver.at('/hangs')).toHaveLength(2);
      // Each slot freed lets exactly one more in: never more than two at once.
      for (let n = 4; n <= 8; n += 2) {
        expect(receiver.release('/hangs')).toBe(2);
        await receiver.waitFor('/hangs', n);
      }
      expect(receiver.maxConcurrent.get('/hangs')).toBe(2);
      expect(receiver.release('/hangs')).toBe(2);
    } finally {
      await other.close();
      await own.stop();
    }
  });

  it('shows a job only to its team and pages through it with a cursor', async () => {
    const jobId = randomUUID();
    for (let i = 0; i < 3; i++)
      await stack.publish(jobEvent(jobId, team, 'batch_scrape.page', hook('/paged')));
    await stack.waitForLog(team, jobId, (d) => d.length === 3 && d.every((x) => x.status === 'delivered'));
    expect((await stack.log('another-team', jobId)).deliveries).toEqual([]);
    const first = await stack.log(team, jobId, 2);
    expect(first.deliveries).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await stack.log(team, jobId, 2, first.nextCursor!);
    expect(second.deliveries).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    const ids = [...first.deliveries, ...second.deliveries].map((d) => d.webhookId);
    expect(new Set(ids).size).toBe(3);
    await expect(stack.log(team, jobId, 2, 'not-a-cursor')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

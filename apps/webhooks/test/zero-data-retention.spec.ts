import { randomUUID } from 'node:crypto';
import { RPC, STREAMS, type JobEventInput } from '@wds/contracts';
import { Database } from '@wds/database';
import { Receiver } from './support/receiver';
import { WebhooksStack, jobEvent } from './support/webhooks-harness';

jest.setTimeout(60_000);

interface StoredRow {
  status: string;
  body: Buffer;
  body_erased_at: Date | null;
}

/**
 * Zero data retention against the real service, stream and database: a ZDR job's event is
 * delivered with its document, then neither the events stream nor the outbox keeps that document,
 * while other jobs' events stay in both as before.
 */
describe('webhooks service: zero-data-retention events', () => {
  let stack: WebhooksStack;
  let receiver: Receiver;
  let db: Database;
  const team = 'team-zdr';

  beforeAll(async () => {
    receiver = await Receiver.start();
    stack = await WebhooksStack.start();
    await stack.startService({ WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1' });
    db = new Database({ url: stack.databaseUrl, max: 2 });
  });

  afterAll(async () => {
    await db?.close();
    await stack?.stop();
    await receiver?.close();
  });

  const hook = (path: string, extra: Partial<Exclude<JobEventInput['webhook'], undefined>> = {}) => ({
    url: `${receiver.url}${path}`,
    ...extra,
  });

  /** webhookIds of the job events the stream holds now. */
  async function inStream(): Promise<Set<string>> {
    const jsm = stack.client.jsm;
    const { state } = await jsm.streams.info(STREAMS.WDS_EVENTS_V1.name);
    const ids = new Set<string>();
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(STREAMS.WDS_EVENTS_V1.name, { seq });
      if (m) ids.add((m.json() as { webhookId: string }).webhookId);
    }
    return ids;
  }

  async function row(webhookId: string): Promise<StoredRow | undefined> {
    const { rows } = await db.query<StoredRow>(
      'SELECT status, body, body_erased_at FROM webhooks.deliveries WHERE webhook_id = $1',
      [webhookId],
    );
    return rows[0];
  }

  async function until<T>(what: string, fn: () => Promise<T | undefined | false>): Promise<T> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('delivers a ZDR page with its document, then drops it from the stream and erases the stored body', async () => {
    const zdrJob = randomUUID();
    const plainJob = randomUUID();
    const zdr = jobEvent(zdrJob, team, 'crawl.page', hook('/zdr', { metadata: { run: 1 } }), {
      zeroDataRetention: true,
    });
    const plain = jobEvent(plainJob, team, 'crawl.page', hook('/plain'));
    await stack.publish(zdr);
    await stack.publish(plain);

    const [gotZdr] = await receiver.waitFor('/zdr', 1);
    const [gotPlain] = await receiver.waitFor('/plain', 1);
    // The receiver gets the spec body, document included, and never the ZDR flag.
    expect(gotZdr.body).toEqual({
      success: true,
      type: 'crawl.page',
      id: zdrJob,
      webhookId: zdr.webhookId,
      data: zdr.data,
      metadata: { run: 1 },
    });

    const erased = await until('the ZDR body to be erased', async () => {
      const r = await row(zdr.webhookId);
      return r?.body_erased_at ? r : undefined;
    });
    expect(erased.status).toBe('delivered');
    expect(erased.body.length).toBe(0);
    await until('the ZDR event to leave the stream', async () => !(await inStream()).has(zdr.webhookId));

    // The other job's event is untouched in both places.
    const kept = await until('the plain delivery to finish', async () => {
      const r = await row(plain.webhookId);
      return r?.status === 'delivered' ? r : undefined;
    });
    expect(kept.body_erased_at).toBeNull();
    expect(kept.body.equals(gotPlain.raw)).toBe(true);
    expect((await inStream()).has(plain.webhookId)).toBe(true);

    // The delivery log still lists the ZDR delivery and its attempt.
    const [entry] = await stack.waitForLog(team, zdrJob, (d) => d[0]?.status === 'delivered');
    expect(entry).toMatchObject({ webhookId: zdr.webhookId, attempts: 1, lastStatusCode: 200 });
  });

  it('erases the body of a ZDR delivery that gives up, and keeps the retried bytes until then', async () => {
    const jobId = randomUUID();
    receiver.on('/zdr-down', () => 503);
    const event = jobEvent(jobId, team, 'batch_scrape.page', hook('/zdr-down'), { zeroDataRetention: true });
    await stack.publish(event);

    const got = await receiver.waitFor('/zdr-down', 4);
    // Every retry sent the same stored bytes: the body was erased only once the delivery was final.
    for (const r of got) expect(r.raw.equals(got[0].raw)).toBe(true);
    expect(got[0].body.data).toEqual(event.data);
    const r = await until('the failed ZDR body to be erased', async () => {
      const x = await row(event.webhookId);
      return x?.body_erased_at ? x : undefined;
    });
    expect(r.status).toBe('failed');
    expect(r.body.length).toBe(0);
    expect((await inStream()).has(event.webhookId)).toBe(false);
    // Its document is gone, so it cannot be sent again: a re-queue says so and leaves it failed.
    receiver.on('/zdr-down', () => 200);
    expect(await stack.client.request(RPC.webhookDeliveriesRequeue, { teamId: team, jobId })).toEqual({
      requeued: 0,
      erased: 1,
    });
    expect((await row(event.webhookId))?.status).toBe('failed');
    expect(receiver.at('/zdr-down')).toHaveLength(4);
  });

  it('drops ZDR events nobody is to receive from the stream too', async () => {
    const jobId = randomUUID();
    const noWebhook = jobEvent(jobId, team, 'crawl.started', undefined, { zeroDataRetention: true });
    const unwanted = jobEvent(jobId, team, 'crawl.page', hook('/no-pages', { events: ['completed'] }), {
      zeroDataRetention: true,
    });
    const plainNoWebhook = jobEvent(randomUUID(), team, 'crawl.started', undefined);
    await stack.publish(noWebhook);
    await stack.publish(unwanted);
    await stack.publish(plainNoWebhook);

    await until('the ZDR events to leave the stream', async () => {
      const ids = await inStream();
      return !ids.has(noWebhook.webhookId) && !ids.has(unwanted.webhookId);
    });
    // Once the consumer has handled everything, the plain event is still there.
    await stack.eventsHandled(20_000);
    expect((await inStream()).has(plainNoWebhook.webhookId)).toBe(true);
    expect(await row(noWebhook.webhookId)).toBeUndefined();
    expect(await row(unwanted.webhookId)).toBeUndefined();
    expect(receiver.at('/no-pages')).toHaveLength(0);
  });
});

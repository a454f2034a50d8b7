import { deadLetterSubject, defineStreamMessage, type ConsumerDef, type StreamDef } from '@wds/contracts';
import { createLogger } from '@wds/observability';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Messaging } from '../src';
import {
  deadLetters as lettersIn,
  startPrivateNats,
  waitFor as waitUntil,
  workStreams,
  type PrivateNats,
} from './support/nats-harness';

const logger = createLogger({ service: 'messaging-test', level: 'silent' });
const id = randomUUID().slice(0, 8).toUpperCase();

const { WORK, DLQ } = workStreams('T', id);
const Task = defineStreamMessage(`t${id}.work.>`, WORK.name, z.object({ n: z.number().int() }));

function consumerDef(name: string, subject: string, extra: Partial<ConsumerDef> = {}): ConsumerDef {
  return {
    stream: WORK.name,
    durable: name,
    filterSubject: subject,
    ackWaitMs: 5000,
    maxDeliver: 3,
    ...extra,
  };
}

const waitFor = <T>(fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 8000) =>
  waitUntil(fn, timeoutMs);

describe('Messaging on JetStream (real NATS)', () => {
  let m: Messaging;
  let nats: PrivateNats;

  beforeAll(async () => {
    nats = await startPrivateNats('messaging-js');
    m = await Messaging.connect({ servers: nats.url, name: 'js-test', logger });
    await m.ensureStreams([WORK, DLQ]);
  });

  afterAll(async () => {
    await m.jsm.streams.delete(WORK.name).catch(() => undefined);
    await m.jsm.streams.delete(DLQ.name).catch(() => undefined);
    await m.drain();
    await nats.stop();
  });

  const deadLetters = (subject: string) => lettersIn(m, DLQ, subject);

  it('ensureStreams is idempotent and updates an existing stream', async () => {
    await m.ensureStreams([{ ...WORK, maxAgeMs: 120_000 }]);
    const info = await m.jsm.streams.info(WORK.name);
    expect(info.config.max_age).toBe(120_000 * 1_000_000);
    await m.ensureStreams([WORK]);
  });

  it('ensureStreams updates a stream another process created between its check and its create', async () => {
    const def: StreamDef = { ...WORK, name: `T_LATE_${id}`, subjects: [`t${id}.late.>`] };
    const other = await Messaging.connect({ servers: nats.url, name: 'other-replica', logger });
    const late = await Messaging.connect({ servers: nats.url, name: 'late-replica', logger });
    try {
      // The genuine "not found" answer, then the other replica (an older release: another max age)
      // creates the stream before this one's create arrives, which the server then refuses.
      const notFound = await late.jsm.streams.info(def.name).catch((e: unknown) => e);
      const info = late.jsm.streams.info.bind(late.jsm.streams);
      let first = true;
      late.jsm.streams.info = async (name, opts) => {
        if (!first || name !== def.name) return info(name, opts);
        first = false;
        await other.ensureStreams([{ ...def, maxAgeMs: 90_000 }]);
        throw notFound;
      };
      await late.ensureStreams([def]);
      expect((await m.jsm.streams.info(def.name)).config.max_age).toBe(def.maxAgeMs * 1_000_000);
    } finally {
      await other.drain();
      await late.drain();
    }
  });

  it('refuses to publish an invalid payload or a subject outside the definition', async () => {
    await expect(m.publish(Task, { n: 1.5 }, { subject: `t${id}.work.a` })).rejects.toThrow(/\bn\b/);
    await expect(m.publish(Task, { n: 1 }, { subject: `other.${id}` })).rejects.toThrow(
      /not a concrete subject/,
    );
  });

  it('delivers, acks, and retries after a handler failure', async () => {
    const subject = `t${id}.work.retry`;
    const def = consumerDef('retry', subject);
    await m.ensureConsumer(def);
    const seen: { n: number; delivery: number }[] = [];
    const running = await m.consume(
      Task,
      def,
      async (payload, ctx) => {
        seen.push({ n: payload.n, delivery: ctx.deliveryCount });
        if (ctx.deliveryCount === 1) throw new Error('transient');
      },
      { retryDelayMs: 100 },
    );
    await m.publish(Task, { n: 7 }, { subject });
    await waitFor(() => seen.length >= 2 || undefined);
    await running.stop();
    expect(seen).toEqual([
      { n: 7, delivery: 1 },
      { n: 7, delivery: 2 },
    ]);
    // The ack is sent without waiting for the server's confirmation (consumer.ts), and the server
    // applies it apart from the API request that reads the consumer: wait for it to be counted.
    const info = await waitFor(async () => {
      const i = await m.jsm.consumers.info(WORK.name, 'retry');
      return i.num_ack_pending === 0 ? i : undefined;
    });
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
    expect(await deadLetters(subject)).toEqual([]);
  });

  it('stores a message published twice with the same msgId once', async () => {
    const subject = `t${id}.work.dedupe`;
    await m.publish(Task, { n: 1 }, { subject, msgId: 'job-1:url-1' });
    await m.publish(Task, { n: 1 }, { subject, msgId: 'job-1:url-1' });
    await m.publish(Task, { n: 2 }, { subject, msgId: 'job-1:url-2' });
    const def = consumerDef('dedupe', subject);
    await m.ensureConsumer(def);
    const info = await m.jsm.consumers.info(WORK.name, 'dedupe');
    expect(info.num_pending).toBe(2);
    const ids: (string | undefined)[] = [];
    const running = await m.consume(Task, def, async (_p, ctx) => {
      ids.push(ctx.msgId);
    });
    await waitFor(() => ids.length >= 2 || undefined);
    await running.stop();
    expect(ids.sort()).toEqual(['job-1:url-1', 'job-1:url-2']);
  });

  it('dead-letters an invalid message without handing it to the handler', async () => {
    const subject = `t${id}.work.poison`;
    const def = consumerDef('poison', subject);
    await m.ensureConsumer(def);
    const handled: number[] = [];
    const running = await m.consume(Task, def, async (p) => {
      handled.push(p.n);
    });
    await m.js.publish(subject, new TextEncoder().encode('{"n":"not a number"}'));
    await m.js.publish(subject, new Uint8Array([0xff, 0x00, 0x7b]));
    await m.publish(Task, { n: 3 }, { subject });
    const letters = await waitFor(async () => {
      const l = await deadLetters(subject);
      return l.length >= 2 ? l : undefined;
    });
    await waitFor(() => handled.length >= 1 || undefined);
    await running.stop();
    expect(handled).toEqual([3]);
    expect(letters.map((l) => l.reason)).toEqual(['invalid_payload', 'invalid_payload']);
    expect(letters[0]).toMatchObject({
      originalSubject: subject,
      payload: '{"n":"not a number"}',
      payloadEncoding: 'utf8',
      deliveryCount: 1,
      error: { success: false, code: 'BAD_REQUEST' },
    });
    expect(letters[0].error.error).toMatch(/\bn\b/);
    expect(letters[1]).toMatchObject({
      payloadEncoding: 'base64',
      payload: Buffer.from([0xff, 0x00, 0x7b]).toString('base64'),
    });
    const info = await m.jsm.consumers.info(WORK.name, 'poison');
    expect(info.num_ack_pending).toBe(0);
  });

  it('dead-letters a message whose last allowed delivery fails', async () => {
    const subject = `t${id}.work.fail`;
    const def = consumerDef('fail', subject, { maxDeliver: 2, backoffMs: [100] });
    await m.ensureConsumer(def);
    const deliveries: number[] = [];
    const running = await m.consume(Task, def, async (_p, ctx) => {
      deliveries.push(ctx.deliveryCount);
      throw new Error('always broken');
    });
    await m.publish(Task, { n: 9 }, { subject });
    const letters = await waitFor(async () => {
      const l = await deadLetters(subject);
      return l.length ? l : undefined;
    });
    await running.stop();
    expect(deliveries).toEqual([1, 2]);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      reason: 'max_deliveries',
      deliveryCount: 2,
      payload: '{"n":9}',
      error: { code: 'INTERNAL', error: 'always broken' },
    });
  });

  it('keeps nothing of a zero-data-retention message it dead-letters: its identifiers only, and the message deleted', async () => {
    // A limits stream, like the job events': a terminated message would stay there until its max age.
    const EVT: StreamDef = {
      name: `T_EVT_${id}`,
      subjects: [`t${id}.evt.>`],
      retention: 'limits',
      maxAgeMs: 60_000,
      duplicateWindowMs: 60_000,
    };
    const EVT_DLQ: StreamDef = {
      ...EVT,
      name: `T_EVTDLQ_${id}`,
      subjects: [deadLetterSubject(`t${id}.evt.>`)],
    };
    await m.ensureStreams([EVT, EVT_DLQ]);
    const Event = defineStreamMessage(
      `t${id}.evt.>`,
      EVT.name,
      z.object({
        id: z.string(),
        teamId: z.string(),
        type: z.string(),
        zeroDataRetention: z.boolean().optional(),
        data: z.array(z.string()),
      }),
    );
    const subject = `t${id}.evt.zdr`;
    const def: ConsumerDef = {
      stream: EVT.name,
      durable: 'zdr',
      filterSubject: subject,
      ackWaitMs: 5000,
      maxDeliver: 2,
      backoffMs: [100],
    };
    const stored = async (): Promise<string[]> => {
      const info = await m.jsm.streams.info(EVT.name);
      const out: string[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const msg = await m.jsm.streams.getMessage(EVT.name, { seq }).catch(() => null);
        if (msg) out.push(msg.string());
      }
      return out;
    };
    try {
      const running = await m.consume(Event, def, async () => {
        throw new Error('store unavailable');
      });
      const base = { teamId: 'team-a', type: 'crawl.page' };
      await m.publish(
        Event,
        { ...base, id: 'job-zdr', zeroDataRetention: true, data: ['private page text'] },
        { subject },
      );
      await m.publish(Event, { ...base, id: 'job-kept', data: ['ordinary page text'] }, { subject });
      // Invalid (data is not a list of strings) and zero data retention: redacted too.
      await m.js.publish(
        subject,
        new TextEncoder().encode(
          JSON.stringify({ ...base, id: 'job-bad', zeroDataRetention: true, data: [{ text: 'private' }] }),
        ),
      );
      const letters = await waitFor(async () => {
        const l = await lettersIn(m, EVT_DLQ, subject);
        return l.length === 3 ? l : undefined;
      });
      const left = await waitFor(async () => {
        const l = await stored();
        return l.length === 1 ? l : undefined;
      });
      await running.stop();
      const byId = (jobId: string) => letters.find((l) => l.payload.includes(`"${jobId}"`));
      expect(byId('job-zdr')).toMatchObject({
        reason: 'max_deliveries',
        redacted: true,
        payloadEncoding: 'utf8',
      });
      expect(JSON.parse(byId('job-zdr')!.payload)).toEqual({
        id: 'job-zdr',
        teamId: 'team-a',
        type: 'crawl.page',
      });
      expect(byId('job-bad')).toMatchObject({ reason: 'invalid_payload', redacted: true });
      expect(JSON.parse(byId('job-bad')!.payload)).toEqual({
        id: 'job-bad',
        teamId: 'team-a',
        type: 'crawl.page',
      });
      // An ordinary message is kept whole, in its dead letter and in its (limits) stream.
      expect(byId('job-kept')).toMatchObject({ reason: 'max_deliveries' });
      expect(byId('job-kept')!.redacted).toBeUndefined();
      expect(JSON.parse(byId('job-kept')!.payload).data).toEqual(['ordinary page text']);
      expect(left).toHaveLength(1);
      expect(left[0]).toContain('job-kept');
      expect(JSON.stringify(letters)).not.toContain('private');
    } finally {
      await m.jsm.streams.delete(EVT.name).catch(() => undefined);
      await m.jsm.streams.delete(EVT_DLQ.name).catch(() => undefined);
    }
  });

  it('respects the concurrency limit and lets in-flight handlers finish on stop', async () => {
    const subject = `t${id}.work.conc`;
    const def = consumerDef('conc', subject);
    await m.ensureConsumer(def);
    let active = 0;
    let maxActive = 0;
    let done = 0;
    const running = await m.consume(
      Task,
      def,
      async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((r) => setTimeout(r, 150));
        active--;
        done++;
      },
      { concurrency: 2 },
    );
    for (let n = 0; n < 6; n++) await m.publish(Task, { n }, { subject });
    await waitFor(() => done >= 3 || undefined);
    await running.stop();
    expect(active).toBe(0);
    expect(maxActive).toBe(2);
  });

  it('keeps a slow message from being redelivered by sending working() heartbeats', async () => {
    const subject = `t${id}.work.slow`;
    const def = consumerDef('slow', subject, { ackWaitMs: 600 });
    await m.ensureConsumer(def);
    const deliveries: number[] = [];
    let handled = 0;
    const running = await m.consume(Task, def, async (_p, ctx) => {
      deliveries.push(ctx.deliveryCount);
      await new Promise((r) => setTimeout(r, 1500));
      handled++;
    });
    await m.publish(Task, { n: 1 }, { subject });
    // Barrier: the first delivery was handled and nothing is left pending or unacknowledged, so a
    // redelivery (had the heartbeats failed, one was due 600 ms in) would have been seen by now.
    await waitFor(async () => {
      if (handled < 1) return undefined;
      const info = await m.jsm.consumers.info(WORK.name, 'slow');
      return info.num_pending === 0 && info.num_ack_pending === 0 && handled === deliveries.length
        ? true
        : undefined;
    }, 30_000);
    await running.stop();
    expect(deliveries).toEqual([1]);
    const info = await m.jsm.consumers.info(WORK.name, 'slow');
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_redelivered).toBe(0);
  });

  it('keeps messages waiting for a free slot from being redelivered (heartbeats from delivery)', async () => {
    const subject = `t${id}.work.queued`;
    const def = consumerDef('queued', subject, { ackWaitMs: 600 });
    await m.ensureConsumer(def);
    const deliveries: Array<[number, number]> = [];
    const running = await m.consume(
      Task,
      def,
      async (p, ctx) => {
        deliveries.push([p.n, ctx.deliveryCount]);
        await new Promise((r) => setTimeout(r, 900));
      },
      { concurrency: 1 },
    );
    // The third waits ~1.8 s, three ack waits, for its slot.
    for (let n = 0; n < 3; n++) await m.publish(Task, { n }, { subject });
    await waitFor(() => deliveries.length >= 3 || undefined);
    await new Promise((r) => setTimeout(r, 1200));
    await running.stop();
    expect(deliveries).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
  });

  it('redelivers the messages of a consumer that stopped answering within the ack wait', async () => {
    const subject = `t${id}.work.orphan`;
    const def = consumerDef('orphan', subject, { ackWaitMs: 1000 });
    await m.ensureConsumer(def);
    // A second connection takes the message and dies with it (closed without acking: a SIGKILL).
    const doomed = await Messaging.connect({ servers: nats.url, name: 'js-doomed', logger });
    let took!: () => void;
    const taken = new Promise<void>((r) => (took = r));
    await doomed.consume(Task, def, async () => {
      took();
      await new Promise(() => undefined);
    });
    await m.publish(Task, { n: 7 }, { subject });
    await taken;
    await doomed.nc.close();
    const t0 = Date.now();
    const seen: number[] = [];
    const running = await m.consume(Task, def, async (_p, ctx) => {
      seen.push(ctx.deliveryCount);
    });
    await waitFor(() => seen.length >= 1 || undefined, 10_000);
    await running.stop();
    expect(seen).toEqual([2]);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

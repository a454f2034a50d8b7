import { defineStreamMessage, type ConsumerDef, type StreamDef } from '@wds/contracts';
import { createLogger } from '@wds/observability';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Messaging } from '../src';
import { startPrivateNats, type PrivateNats } from './support/nats-harness';

const logger = createLogger({ service: 'messaging-test', level: 'silent' });
const id = randomUUID().slice(0, 8).toUpperCase();

/** A limits stream: consumed messages stay until they age out, unless deleted. */
const EVENTS: StreamDef = {
  name: `T_EVENTS_${id}`,
  subjects: [`t${id}.events.>`],
  retention: 'limits',
  maxAgeMs: 60_000,
  duplicateWindowMs: 60_000,
};
const Event = defineStreamMessage(`t${id}.events.>`, EVENTS.name, z.object({ n: z.number().int() }));
const CONSUMER: ConsumerDef = {
  stream: EVENTS.name,
  durable: 'deleter',
  filterSubject: `t${id}.events.>`,
  ackWaitMs: 5000,
  maxDeliver: 3,
};

describe('Messaging.deleteMessage and the consumer stream sequence (real NATS)', () => {
  let m: Messaging;
  let nats: PrivateNats;

  beforeAll(async () => {
    nats = await startPrivateNats('messaging-del');
    m = await Messaging.connect({ servers: nats.url, name: 'del-test', logger });
    await m.ensureStreams([EVENTS]);
  });

  afterAll(async () => {
    await m.drain();
    await nats.stop();
  });

  it('gives handlers the stream sequence, by which a message is deleted from a limits stream', async () => {
    await m.publish(Event, { n: 1 }, { subject: `t${id}.events.a` });
    await m.publish(Event, { n: 2 }, { subject: `t${id}.events.a` });
    const seen: { n: number; seq: number; deleted: boolean }[] = [];
    const running = await m.consume(Event, CONSUMER, async (payload, ctx) => {
      // Only odd payloads are removed; the even one must stay in the stream.
      const deleted = payload.n % 2 === 1 ? await m.deleteMessage(EVENTS, ctx.streamSeq) : false;
      seen.push({ n: payload.n, seq: ctx.streamSeq, deleted });
    });
    const deadline = Date.now() + 10_000;
    while (seen.length < 2) {
      if (Date.now() > deadline) throw new Error(`handled only ${JSON.stringify(seen)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    await running.stop();

    expect(seen).toEqual([
      { n: 1, seq: 1, deleted: true },
      { n: 2, seq: 2, deleted: false },
    ]);
    await expect(m.jsm.streams.getMessage(EVENTS.name, { seq: 1 })).resolves.toBeNull();
    const kept = await m.jsm.streams.getMessage(EVENTS.name, { seq: 2 });
    expect(kept?.json()).toEqual({ n: 2 });
    expect((await m.jsm.streams.info(EVENTS.name)).state.messages).toBe(1);
    // A redelivered handler deletes again: nothing left to delete is not an error.
    await expect(m.deleteMessage(EVENTS.name, 1)).resolves.toBe(false);
    await expect(m.deleteMessage(EVENTS.name, 99)).resolves.toBe(false);
  });
});

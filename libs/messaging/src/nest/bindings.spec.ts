import type { MessageHandler } from '@nestjs/microservices';
import { defineRpc, defineStreamMessage, type ConsumerDef } from '@wds/contracts';
import { of, throwError } from 'rxjs';
import { z } from 'zod';
import { BindingError, planBindings, settle } from './bindings';
import { jetStream, rpc } from './patterns';

const Ping = defineRpc('t.ping', 't-ping', z.object({}), z.object({ ok: z.boolean() }));
const Event = defineStreamMessage('t.events.>', 'T_EVENTS', z.object({ n: z.number() }));
const consumer: ConsumerDef = {
  stream: 'T_EVENTS',
  durable: 't-events',
  filterSubject: 't.events.>',
  ackWaitMs: 1000,
  maxDeliver: 3,
};

/** A handler as Nest's ListenersController hands it to `Server.addHandler`. */
function handler(args: readonly unknown[], isEventHandler: boolean): MessageHandler {
  const extras = args[args.length - 1];
  const fn = (async () => undefined) as MessageHandler;
  fn.isEventHandler = isEventHandler;
  fn.extras = typeof extras === 'object' && extras !== null ? (extras as Record<string, unknown>) : {};
  return fn;
}

describe('planBindings', () => {
  it('binds RPC and consumer handlers with their contracts', () => {
    const handlers = new Map<string, MessageHandler>([
      [Ping.subject, handler(rpc(Ping), false)],
      [Event.subject, handler(jetStream(Event, consumer, { concurrency: 4, retryDelayMs: [10, 20] }), true)],
    ]);
    const plan = planBindings(handlers, {});
    expect(plan.map((b) => [b.kind, b.def.subject])).toEqual([
      ['rpc', 't.ping'],
      ['consumer', 't.events.>'],
    ]);
    expect(plan[1]).toMatchObject({ consumer, options: { concurrency: 4, retryDelayMs: [10, 20] } });
  });

  it('reads the concurrency from the config when given as a function', () => {
    const spec = jetStream(Event, consumer, { concurrency: (c: { N: number }) => c.N });
    const [plan] = planBindings(new Map([[Event.subject, handler(spec, true)]]), { N: 6 });
    expect(plan).toMatchObject({ options: { concurrency: 6 } });
    expect(() => planBindings(new Map([[Event.subject, handler(spec, true)]]), { N: 0 })).toThrow(
      /positive integer/,
    );
  });

  it('leaves out an RPC whose `when` is false for the config, and keeps it where it holds', () => {
    const spec = rpc(Ping, { when: (c: { RUNS: number }) => c.RUNS > 0 });
    const handlers = () => new Map([[Ping.subject, handler(spec, false)]]);
    expect(planBindings(handlers(), { RUNS: 0 })).toEqual([]);
    expect(planBindings(handlers(), { RUNS: 2 }).map((b) => b.def.subject)).toEqual(['t.ping']);
  });

  it('builds the consumer from the config when given as a function', () => {
    const spec = jetStream(Event, (c: { ACK_MS: number }) => ({ ...consumer, ackWaitMs: c.ACK_MS }));
    const [plan] = planBindings(new Map([[Event.subject, handler(spec, true)]]), { ACK_MS: 4321 });
    expect(plan).toMatchObject({ kind: 'consumer', consumer: { durable: 't-events', ackWaitMs: 4321 } });
  });

  it('refuses a handler without a contract (it would be served unvalidated)', () => {
    expect(() => planBindings(new Map([['t.raw', handler(['t.raw', undefined], false)]]), {})).toThrow(
      BindingError,
    );
    expect(() => planBindings(new Map([['t.raw', handler(['t.raw', undefined], true)]]), {})).toThrow(
      /has no contract/,
    );
  });

  it('refuses a contract of the wrong kind or of another subject', () => {
    expect(() =>
      planBindings(new Map([[Event.subject, handler(jetStream(Event, consumer), false)]]), {}),
    ).toThrow(/needs an RPC contract/);
    expect(() => planBindings(new Map([[Ping.subject, handler(rpc(Ping), true)]]), {})).toThrow(
      /needs a stream contract/,
    );
    expect(() => planBindings(new Map([['t.other', handler(rpc(Ping), false)]]), {})).toThrow(
      /carries the contract of t.ping/,
    );
  });

  it('refuses two event handlers for one subject and one durable bound twice', () => {
    const first = handler(jetStream(Event, consumer), true);
    first.next = handler(jetStream(Event, consumer), true);
    expect(() => planBindings(new Map([[Event.subject, first]]), {})).toThrow(/declared twice/);
    const Other = defineStreamMessage('t.other.>', 'T_EVENTS', z.object({}));
    const handlers = new Map([
      [Event.subject, handler(jetStream(Event, consumer), true)],
      [Other.subject, handler(jetStream(Other, consumer), true)],
    ]);
    expect(() => planBindings(handlers, {})).toThrow(/bound to two handlers/);
  });
});

describe('settle', () => {
  it('resolves a value, a promise and the last value of an observable', async () => {
    await expect(settle({ a: 1 })).resolves.toEqual({ a: 1 });
    await expect(settle(Promise.resolve(of(1, 2, 3)))).resolves.toBe(3);
    await expect(settle(Promise.resolve(undefined))).resolves.toBeUndefined();
  });

  it('rejects with the error of an erroring stream (what the exception filter hands back)', async () => {
    const err = new Error('boom');
    await expect(settle(Promise.resolve(throwError(() => err)))).rejects.toBe(err);
    await expect(settle(Promise.reject(err))).rejects.toBe(err);
  });
});

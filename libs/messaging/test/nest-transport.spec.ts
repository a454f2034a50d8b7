import { Controller, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { trace } from '@opentelemetry/api';
import { SimpleSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { ErrorCode, ServiceError, defineRpc, defineStreamMessage, type ConsumerDef } from '@wds/contracts';
import { createLogger, shutdownTelemetry, startTelemetry } from '@wds/observability';
import { randomUUID } from 'node:crypto';
import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import {
  BindingError,
  JetStreamContext,
  Messaging,
  WdsClientProxy,
  WdsRecord,
  WdsRpcContext,
  connectWdsTransport,
  jetStream,
  rpc,
} from '../src';
import {
  deadLetters as lettersIn,
  startPrivateNats,
  waitFor as waitUntil,
  workStreams,
  type PrivateNats,
} from './support/nats-harness';

const logger = createLogger({ service: 'transport-test', level: 'silent' });
// Positive barriers below wait up to 20 s on a loaded machine; the test itself must outlast them.
jest.setTimeout(60_000);
const id = randomUUID().slice(0, 8).toUpperCase();

const Add = defineRpc(
  `t${id}.add`,
  `t${id}-add`,
  z.object({ a: z.number(), b: z.number().default(0) }),
  z.object({ sum: z.number() }),
);
const Broken = defineRpc(`t${id}.broken`, `t${id}-broken`, z.object({}), z.object({ ok: z.literal(true) }));

const { WORK, DLQ } = workStreams('T_NEST', id);
const Task = defineStreamMessage(
  `t${id}.work.>`,
  WORK.name,
  z.object({ n: z.number().int(), fail: z.number().default(0) }),
);
const TASKS: ConsumerDef = {
  stream: WORK.name,
  durable: `t${id}-tasks`,
  filterSubject: `t${id}.work.>`,
  ackWaitMs: 2000,
  maxDeliver: 3,
  backoffMs: [100, 100],
};

interface Seen {
  n: number;
  delivery: number;
  subject: string;
  traceId?: string;
}

/** What the handlers saw, for the assertions. */
const seen = { adds: [] as { ctx: WdsRpcContext; traceId?: string }[], tasks: [] as Seen[] };

@Controller()
class TestHandlers {
  @MessagePattern(...rpc(Add))
  async add(@Payload() req: z.output<typeof Add.request>, @Ctx() ctx: WdsRpcContext) {
    seen.adds.push({ ctx, traceId: trace.getActiveSpan()?.spanContext().traceId });
    if (req.a < 0) throw new ServiceError(ErrorCode.RATE_LIMITED, 'slow down', { limit: 1 }, 7);
    if (req.a === 13) throw new Error('database password is hunter2');
    return { sum: req.a + req.b };
  }

  @MessagePattern(...rpc(Broken))
  broken() {
    return { ok: false };
  }

  @EventPattern(...jetStream(Task, TASKS, { concurrency: (c: { TASKS: number }) => c.TASKS }))
  async task(@Payload() task: z.output<typeof Task.payload>, @Ctx() ctx: JetStreamContext) {
    seen.tasks.push({
      n: task.n,
      delivery: ctx.getDeliveryCount(),
      subject: ctx.getSubject(),
      traceId: trace.getActiveSpan()?.spanContext().traceId,
    });
    if (ctx.getDeliveryCount() <= task.fail) throw new Error(`task ${task.n} failed`);
  }
}

@Module({ controllers: [TestHandlers] })
class TestModule {}

@Controller()
class Unvalidated {
  @MessagePattern(`t${id}.raw`)
  raw() {
    return {};
  }
}

@Module({ controllers: [Unvalidated] })
class UnvalidatedModule {}

const waitFor = <T>(fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000) =>
  waitUntil(fn, timeoutMs);

async function startApp(module: unknown, messaging: Messaging): Promise<INestApplication> {
  const app = await NestFactory.create(module as never, new FastifyAdapter(), { logger: false });
  connectWdsTransport(app, { messaging, logger, config: { TASKS: 2 } });
  await app.init();
  try {
    await app.startAllMicroservices();
  } catch (err) {
    await app.close();
    throw err;
  }
  return app;
}

describe('WDS transport for Nest (@MessagePattern / @EventPattern over real NATS JetStream)', () => {
  const exporter = new InMemorySpanExporter();
  let nats: PrivateNats;
  let server: Messaging;
  let caller: Messaging;
  let client: WdsClientProxy;
  let app: INestApplication;

  beforeAll(async () => {
    startTelemetry({ serviceName: 'transport-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
    nats = await startPrivateNats('nest-transport');
    server = await Messaging.connect({ servers: nats.url, name: 'transport-server', logger });
    caller = await Messaging.connect({ servers: nats.url, name: 'transport-caller', logger });
    await server.ensureStreams([WORK, DLQ]);
    app = await startApp(TestModule, server);
    client = new WdsClientProxy(caller);
  });

  afterAll(async () => {
    await app?.close();
    await caller?.drain();
    await server?.drain();
    await nats?.stop();
    await shutdownTelemetry();
  });

  beforeEach(() => {
    seen.adds = [];
    seen.tasks = [];
  });

  const deadLetters = () => lettersIn(server, DLQ);

  it('serves a @MessagePattern handler: parsed request (defaults applied), reply, context', async () => {
    await expect(firstValueFrom(client.send(Add, { a: 2, b: 3 }))).resolves.toEqual({ sum: 5 });
    await expect(
      firstValueFrom(client.send(Add, new WdsRecord({ a: 4 }, { timeoutMs: 5000 }))),
    ).resolves.toEqual({
      sum: 4,
    });
    expect(seen.adds.map((s) => s.ctx.getSubject())).toEqual([Add.subject, Add.subject]);
    expect(seen.adds[0].ctx.getHeaders().traceparent).toMatch(/^00-[0-9a-f]{32}-/);
  });

  it('answers a request that breaks the contract with BAD_REQUEST without calling the handler', async () => {
    const reply = await caller.nc.request(Add.subject, JSON.stringify({ a: 'x' }), { timeout: 5000 });
    expect(reply.headers?.get('Wds-Error')).toBe('BAD_REQUEST');
    expect(reply.json<{ code: string; error: string }>()).toMatchObject({ code: 'BAD_REQUEST' });
    expect(reply.json<{ error: string }>().error).toMatch(/\ba\b/);
    const err = await firstValueFrom(client.send(Add, { a: 'x' } as never)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe(ErrorCode.BAD_REQUEST);
    expect(seen.adds).toEqual([]);
  });

  it('carries a ServiceError thrown by the handler to the caller unchanged; hides other errors', async () => {
    const limited = (await firstValueFrom(client.send(Add, { a: -1, b: 0 })).catch(
      (e: unknown) => e,
    )) as ServiceError;
    expect(limited).toBeInstanceOf(ServiceError);
    expect(limited.code).toBe(ErrorCode.RATE_LIMITED);
    expect(limited.details).toEqual({ limit: 1 });
    expect(limited.retryAfterSeconds).toBe(7);
    const internal = (await firstValueFrom(client.send(Add, { a: 13, b: 0 })).catch(
      (e: unknown) => e,
    )) as ServiceError;
    expect(internal.code).toBe(ErrorCode.INTERNAL);
    expect(internal.message).not.toMatch(/hunter2/);
  });

  it('turns a reply that breaks the contract into INTERNAL at the caller', async () => {
    const err = (await firstValueFrom(client.send(Broken, {})).catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe(ErrorCode.INTERNAL);
  });

  it('propagates the trace context from the caller to the @MessagePattern handler', async () => {
    const tracer = trace.getTracer('test');
    const outer = await tracer.startActiveSpan('caller', async (span) => {
      await firstValueFrom(client.send(Add, { a: 1, b: 1 }));
      span.end();
      return span.spanContext().traceId;
    });
    expect(seen.adds.map((s) => s.traceId)).toEqual([outer]);
  });

  it('consumes with an @EventPattern handler: validated payload, delivery context, trace context, ack', async () => {
    const tracer = trace.getTracer('test');
    const outer = await tracer.startActiveSpan('producer', async (span) => {
      await firstValueFrom(
        client.emit(Task, new WdsRecord({ n: 1 }, { subject: `t${id}.work.a`, msgId: `m1-${id}` })),
      );
      span.end();
      return span.spanContext().traceId;
    });
    // The same message id again is de-duplicated by the stream.
    await firstValueFrom(
      client.emit(Task, new WdsRecord({ n: 1 }, { subject: `t${id}.work.a`, msgId: `m1-${id}` })),
    );
    await firstValueFrom(client.emit(Task, new WdsRecord({ n: 2 }, { subject: `t${id}.work.b` })));
    await waitFor(() => seen.tasks.length >= 2);
    expect(seen.tasks.map((t) => [t.n, t.delivery, t.subject]).sort()).toEqual([
      [1, 1, `t${id}.work.a`],
      [2, 1, `t${id}.work.b`],
    ]);
    expect(seen.tasks.find((t) => t.n === 1)?.traceId).toBe(outer);
    // Acked: the work queue is empty and nothing is pending.
    await waitFor(async () => (await server.jsm.streams.info(WORK.name)).state.messages === 0);
    expect(seen.tasks).toHaveLength(2);
  });

  it('redelivers after a handler failure and acks the retry', async () => {
    await firstValueFrom(client.emit(Task, new WdsRecord({ n: 3, fail: 1 }, { subject: `t${id}.work.c` })));
    await waitFor(() => seen.tasks.some((t) => t.n === 3 && t.delivery === 2));
    await waitFor(async () => (await server.jsm.streams.info(WORK.name)).state.messages === 0);
    expect(seen.tasks.filter((t) => t.n === 3).map((t) => t.delivery)).toEqual([1, 2]);
    expect((await deadLetters()).filter((d) => d.originalSubject === `t${id}.work.c`)).toEqual([]);
  });

  it('dead-letters a payload that breaks the contract without calling the handler', async () => {
    await server.js.publish(`t${id}.work.bad`, JSON.stringify({ n: 'not a number' }));
    const letter = await waitFor(async () =>
      (await deadLetters()).find((d) => d.originalSubject === `t${id}.work.bad`),
    );
    expect(letter.reason).toBe('invalid_payload');
    expect(letter.error.code).toBe(ErrorCode.BAD_REQUEST);
    await waitFor(async () => (await server.jsm.streams.info(WORK.name)).state.messages === 0);
    expect(seen.tasks).toEqual([]);
  });

  it('dead-letters the last failed delivery (max deliveries) and terminates it', async () => {
    await firstValueFrom(client.emit(Task, new WdsRecord({ n: 4, fail: 99 }, { subject: `t${id}.work.d` })));
    const letter = await waitFor(async () =>
      (await deadLetters()).find((d) => d.originalSubject === `t${id}.work.d`),
    );
    expect(letter.reason).toBe('max_deliveries');
    expect(letter.deliveryCount).toBe(TASKS.maxDeliver);
    expect(letter.error.error).toBe('task 4 failed');
    await waitFor(async () => (await server.jsm.streams.info(WORK.name)).state.messages === 0);
    expect(seen.tasks.filter((t) => t.n === 4).map((t) => t.delivery)).toEqual([1, 2, 3]);
  });

  it('takes the consumer concurrency from the service config', async () => {
    const bindings = (
      app.getMicroservices()[0] as unknown as { serverInstance: { bindings(): unknown[] } }
    ).serverInstance.bindings();
    expect(bindings).toContainEqual(
      expect.objectContaining({ kind: 'consumer', options: { concurrency: 2 } }),
    );
  });

  it('refuses to start with a @MessagePattern that carries no contract', async () => {
    const err = await startApp(UnvalidatedModule, server).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BindingError);
    expect((err as Error).message).toMatch(/has no contract/);
  });
});

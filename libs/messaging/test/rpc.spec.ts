import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ErrorCode, ServiceError, defineRpc } from '@wds/contracts';
import { createLogger, shutdownTelemetry, startTelemetry } from '@wds/observability';
import { testNatsUrl } from '@wds/testing';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Messaging } from '../src';

const exporter = new InMemorySpanExporter();
const logger = createLogger({ service: 'messaging-test', level: 'silent' });

const suffix = randomUUID().slice(0, 8);
const Add = defineRpc(
  `test.${suffix}.add`,
  'test-add',
  z.object({ a: z.number(), b: z.number() }),
  z.object({ sum: z.number() }),
);
const Broken = defineRpc(
  `test.${suffix}.broken`,
  'test-broken',
  z.object({}),
  z.object({ ok: z.literal(true) }),
);
const Nobody = defineRpc(`test.${suffix}.nobody`, 'test-nobody', z.object({}), z.object({}));

describe('Messaging RPC (real NATS)', () => {
  let server: Messaging;
  let client: Messaging;
  let seenTraceIds: string[] = [];

  beforeAll(async () => {
    startTelemetry({ serviceName: 'messaging-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
    server = await Messaging.connect({ servers: testNatsUrl(), name: 'rpc-server', logger });
    client = await Messaging.connect({ servers: testNatsUrl(), name: 'rpc-client', logger });
    server.serve(Add, async (req) => {
      seenTraceIds.push(trace.getActiveSpan()?.spanContext().traceId ?? 'none');
      if (req.a < 0) throw new ServiceError(ErrorCode.RATE_LIMITED, 'slow down', { limit: 1 }, 7);
      if (req.a === 13) throw new Error('database password is hunter2');
      return { sum: req.a + req.b };
    });
    server.serve(Broken, async () => ({ ok: false }) as unknown as { ok: true });
    await server.nc.flush();
  });

  afterAll(async () => {
    await client.drain();
    await server.drain();
    await shutdownTelemetry();
  });

  beforeEach(() => {
    seenTraceIds = [];
    exporter.reset();
  });

  it('answers a valid request with the validated reply', async () => {
    await expect(client.request(Add, { a: 2, b: 3 })).resolves.toEqual({ sum: 5 });
  });

  it('rejects an invalid request before sending it', async () => {
    const err = await client.request(Add, { a: 'x' } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe(ErrorCode.BAD_REQUEST);
    expect((err as ServiceError).message).toMatch(/\ba\b/);
    expect(seenTraceIds).toEqual([]);
  });

  it('answers a raw invalid request with a BAD_REQUEST envelope naming the field', async () => {
    const reply = await client.nc.request(Add.subject, JSON.stringify({ a: 1 }), { timeout: 2000 });
    expect(reply.headers?.get('Wds-Error')).toBe('BAD_REQUEST');
    const body = reply.json<{ success: boolean; code: string; error: string }>();
    expect(body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(body.error).toMatch(/\bb\b/);
  });

  it('round-trips a ServiceError with code, details and retry-after', async () => {
    const err = (await client.request(Add, { a: -1, b: 0 }).catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe(ErrorCode.RATE_LIMITED);
    expect(err.message).toBe('slow down');
    expect(err.details).toEqual({ limit: 1 });
    expect(err.retryAfterSeconds).toBe(7);
  });

  it('hides unexpected handler errors behind a generic INTERNAL error', async () => {
    const err = (await client.request(Add, { a: 13, b: 0 }).catch((e: unknown) => e)) as ServiceError;
    expect(err.code).toBe(ErrorCode.INTERNAL);
    expect(err.message).not.toContain('hunter2');
  });

  it('treats a reply that breaks the contract as INTERNAL', async () => {
    const err = (await client.request(Broken, {}).catch((e: unknown) => e)) as ServiceError;
    expect(err.code).toBe(ErrorCode.INTERNAL);
  });

  it('maps no responders to SERVICE_UNAVAILABLE', async () => {
    const err = (await client
      .request(Nobody, {}, { timeoutMs: 1000 })
      .catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe(ErrorCode.SERVICE_UNAVAILABLE);
  });

  it('propagates the trace context from the caller to the handler', async () => {
    const tracer = trace.getTracer('test');
    const outerTraceId = await tracer.startActiveSpan('caller', async (span) => {
      await client.request(Add, { a: 1, b: 1 });
      span.end();
      return span.spanContext().traceId;
    });
    expect(seenTraceIds).toEqual([outerTraceId]);
    const spans = exporter.getFinishedSpans();
    const serverSpan = spans.find((s) => s.name === `${Add.subject} process`);
    const clientSpan = spans.find((s) => s.name === `${Add.subject} send`);
    expect(serverSpan?.spanContext().traceId).toBe(outerTraceId);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
  });

  it('lets in-flight handlers answer before drain closes the connection', async () => {
    const slowDef = defineRpc(
      `test.${suffix}.slow`,
      'test-slow',
      z.object({}),
      z.object({ done: z.boolean() }),
    );
    const worker = await Messaging.connect({ servers: testNatsUrl(), name: 'slow', logger });
    let finished = false;
    worker.serve(slowDef, async () => {
      await new Promise((r) => setTimeout(r, 300));
      finished = true;
      return { done: true };
    });
    await worker.nc.flush();
    const pending = client.request(slowDef, {});
    await new Promise((r) => setTimeout(r, 50));
    await worker.drain();
    expect(finished).toBe(true);
    await expect(pending).resolves.toEqual({ done: true });
    expect(worker.isConnected()).toBe(false);
  });
});

import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createLogger } from './logger';
import { NestPinoLogger } from './nest-logger';
import { shutdownTelemetry, startTelemetry } from './telemetry';
import { extractTraceContext, injectTraceContext } from './trace-context';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  return { lines, destination };
}

describe('observability', () => {
  beforeAll(() => {
    startTelemetry({
      serviceName: 'obs-test',
      spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
    });
  });
  afterAll(() => shutdownTelemetry());

  it('logs JSON with service, instance and the active trace ids, and redacts secrets', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'svc', instanceId: 'i-1', destination });
    const ids = trace.getTracer('t').startActiveSpan('op', (span) => {
      logger.info(
        {
          headers: { authorization: 'Bearer sk-123', cookie: 'a=b' },
          apiKey: 'fc-abc',
          team: { secret: 's' },
        },
        'hello',
      );
      span.end();
      return span.spanContext();
    });
    expect(lines[0]).toMatchObject({
      level: 'info',
      service: 'svc',
      instanceId: 'i-1',
      traceId: ids.traceId,
      spanId: ids.spanId,
      msg: 'hello',
      headers: { authorization: '[redacted]', cookie: '[redacted]' },
      apiKey: '[redacted]',
      team: { secret: '[redacted]' },
    });
  });

  it('round-trips the trace context through a header carrier', () => {
    const carrier: Record<string, string> = {};
    const traceId = trace.getTracer('t').startActiveSpan('op', (span) => {
      injectTraceContext((k, v) => (carrier[k] = v));
      span.end();
      return span.spanContext().traceId;
    });
    expect(carrier.traceparent).toContain(traceId);
    const ctx = extractTraceContext((k) => carrier[k]);
    expect(trace.getSpanContext(ctx)?.traceId).toBe(traceId);
  });

  it('maps Nest log calls to pino levels with the context', () => {
    const { lines, destination } = capture();
    const nest = new NestPinoLogger(createLogger({ service: 'svc', level: 'debug', destination }));
    nest.log('started', 'NestFactory');
    nest.error('failed', 'Error: x\n    at y', 'Router');
    nest.debug({ a: 1 });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', msg: 'started', context: 'NestFactory' }),
      expect.objectContaining({
        level: 'error',
        msg: 'failed',
        context: 'Router',
        stack: 'Error: x\n    at y',
      }),
      expect.objectContaining({ level: 'debug', a: 1 }),
    ]);
  });
});

describe('error serialisation', () => {
  it('drops live objects libraries attach to errors (pg client, sockets)', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const log = createLogger({ service: 't', destination });
    const err = Object.assign(new Error('terminating connection'), {
      code: '57P01',
      client: { connectionParameters: { user: 'wds', password: 'hunter2' } },
    });
    log.warn({ err }, 'idle client failed');
    const line = JSON.parse(lines[0]);
    expect(line.err).toMatchObject({ message: 'terminating connection', code: '57P01' });
    expect(line.err.client).toBeUndefined();
    expect(lines[0]).not.toContain('hunter2');
  });
});

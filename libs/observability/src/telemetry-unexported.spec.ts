import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { createLogger } from './logger';
import { shutdownTelemetry, startTelemetry } from './telemetry';
import { extractTraceContext, injectTraceContext } from './trace-context';

// Its own file: telemetry starts once per process (jest gives each spec file its own globals).
describe('telemetry without an exporter', () => {
  beforeAll(() => startTelemetry({ serviceName: 'obs-unexported', env: {} }));
  afterAll(() => shutdownTelemetry());

  it('records no span data but still gives every operation trace ids for logs and propagation', () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(JSON.parse(chunk.toString()));
        cb();
      },
    });
    const logger = createLogger({ service: 'svc', instanceId: 'i-1', destination });
    const carrier: Record<string, string> = {};
    const span = trace.getTracer('t').startActiveSpan('op', (s) => {
      logger.info('inside');
      injectTraceContext((k, v) => (carrier[k] = v));
      s.end();
      return s;
    });
    expect(span.isRecording()).toBe(false);
    const { traceId, spanId } = span.spanContext();
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe('0'.repeat(32));
    expect(lines[0]).toMatchObject({ traceId, spanId, msg: 'inside' });
    expect(carrier.traceparent).toBe(`00-${traceId}-${spanId}-00`);
    const remote = extractTraceContext((k) => carrier[k]);
    expect(trace.getSpanContext(remote)?.traceId).toBe(traceId);
  });
});

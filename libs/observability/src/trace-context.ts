import { context, propagation, trace, type Context } from '@opentelemetry/api';

/** Writes the active context (traceparent/tracestate/baggage) through `set`, e.g. into NATS headers. */
export function injectTraceContext(set: (key: string, value: string) => void): void {
  propagation.inject(context.active(), undefined, {
    set: (_carrier, key, value) => set(key, value),
  });
}

/** Reads a propagated context through `get`; returns the active context when nothing was propagated. */
export function extractTraceContext(get: (key: string) => string | undefined): Context {
  return propagation.extract(context.active(), undefined, {
    get: (_carrier, key) => get(key),
    keys: () => [],
  });
}

/** Trace and span id of the active span, for log lines. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!trace.isSpanContextValid({ traceId, spanId, traceFlags })) return undefined;
  return { traceId, spanId };
}

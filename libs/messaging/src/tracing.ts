import { SpanKind, SpanStatusCode, context, trace, type Span } from '@opentelemetry/api';
import { extractTraceContext, injectTraceContext } from '@wds/observability';

const tracer = trace.getTracer('@wds/messaging');

export type SpanRole = 'client' | 'server' | 'producer' | 'consumer';

const KINDS: Record<SpanRole, SpanKind> = {
  client: SpanKind.CLIENT,
  server: SpanKind.SERVER,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

const OPERATIONS: Record<SpanRole, string> = {
  client: 'send',
  server: 'process',
  producer: 'publish',
  consumer: 'process',
};

/**
 * Runs `fn` inside a messaging span. Incoming roles (server/consumer) become children of the context
 * propagated in `incoming`; outgoing roles are children of the active context.
 */
export async function withMessagingSpan<T>(
  role: SpanRole,
  subject: string,
  fn: (span: Span) => Promise<T>,
  incoming?: Record<string, string>,
): Promise<T> {
  const parent = incoming
    ? extractTraceContext((k) => incoming[k.toLowerCase()] ?? incoming[k])
    : context.active();
  return tracer.startActiveSpan(
    `${subject} ${OPERATIONS[role]}`,
    {
      kind: KINDS[role],
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subject,
        'messaging.operation.type': OPERATIONS[role],
      },
    },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** Headers to send: the caller's own plus the active trace context. */
export function outgoingHeaders(extra?: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { ...(extra ?? {}) };
  injectTraceContext((k, v) => {
    out[k] = v;
  });
  return out;
}

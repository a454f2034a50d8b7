import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import {
  DeadLetter,
  ErrorCode,
  ServiceError,
  deadLetterSubject,
  type ConsumerDef,
  type ErrorEnvelope,
  type StreamMessageDef,
} from '@wds/contracts';
import type { Logger } from '@wds/observability';
import type { z } from 'zod';
import { decodeJson, describeBytes, encodeJson, headersToRecord, recordToHeaders, validate } from './codec';
import { outgoingHeaders, withMessagingSpan } from './tracing';

export interface ConsumeContext {
  subject: string;
  deliveryCount: number;
  msgId?: string;
  headers: Record<string, string>;
  /** The message's sequence in its stream (what `Messaging.deleteMessage` takes). */
  streamSeq: number;
}

export type ConsumeHandler<D extends StreamMessageDef> = (
  payload: z.output<D['payload']>,
  ctx: ConsumeContext,
) => Promise<void>;

export interface ConsumeOptions {
  /** Messages handled at the same time by this process (default 1). */
  concurrency?: number;
  /**
   * Redelivery delay after a failure when the consumer has no back-off list (default 1000 ms); a
   * list is indexed by delivery count (first failure → first entry), its last entry repeating.
   */
  retryDelayMs?: number | readonly number[];
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * Runs a durable pull consumer:
 * - the payload is validated first; a message that is not valid JSON or fails the schema is poison:
 *   it goes to the dead-letter subject with the reason and is terminated, never handed to the handler;
 * - the message is acked once the handler resolves (without waiting for the server's confirmation:
 *   handlers are idempotent, a lost ack is a redelivery); from the moment it arrives (waiting for a
 *   free slot included) until then, `working()` every third of the ack wait keeps it from being
 *   redelivered to another worker. The ack wait is therefore only how long a dead process's
 *   messages wait for redelivery, and consumers keep it short (seconds);
 * - a handler failure naks with the consumer's back-off delay, and on the last allowed delivery the
 *   message is dead-lettered and terminated instead;
 * - a message that ran with zero data retention (top-level `zeroDataRetention: true`) is not kept by
 *   dead-lettering: its dead letter holds only its identifiers (`redacted`) and `erase` deletes the
 *   message from its stream (a limits stream would keep it until its max age).
 */
export async function startConsumer<D extends StreamMessageDef>(
  js: JetStreamClient,
  logger: Logger,
  def: D,
  consumerDef: ConsumerDef,
  handler: ConsumeHandler<D>,
  opts: ConsumeOptions,
  erase: (seq: number) => Promise<unknown>,
): Promise<RunningConsumer> {
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const log = logger.child({ stream: consumerDef.stream, consumer: consumerDef.durable });
  const consumer = await js.consumers.get(consumerDef.stream, consumerDef.durable);
  const inflight = new Set<Promise<void>>();
  /** Received, not started yet (all slots busy); each with its heartbeat running. */
  const waiting: Array<{ m: JsMsg; heartbeat: NodeJS.Timeout }> = [];
  let active = 0;
  let stopping = false;
  const effectiveAckWait = Math.min(consumerDef.ackWaitMs, consumerDef.backoffMs?.[0] ?? Infinity);

  const heartbeatMs = Math.max(250, Math.floor(effectiveAckWait / 3));
  const process = async (m: JsMsg): Promise<void> => {
    const headers = headersToRecord(m.headers);
    const deliveryCount = m.info.deliveryCount;
    const decoded = decodeJson(m.data);
    let payload: z.output<D['payload']>;
    try {
      if (!decoded.ok) throw new ServiceError(ErrorCode.BAD_REQUEST, 'message is not valid JSON');
      payload = validate(def.payload, decoded.value, `message on ${m.subject}`) as z.output<D['payload']>;
    } catch (err) {
      const envelope = (err as ServiceError).toEnvelope();
      log.error({ subject: m.subject, seq: m.seq, error: envelope.error }, 'invalid message dead-lettered');
      await deadLetterAndTerm(
        m,
        'invalid_payload',
        envelope,
        headers,
        decoded.ok ? decoded.value : undefined,
      );
      return;
    }
    await withMessagingSpan(
      'consumer',
      m.subject,
      async (span) => {
        span.setAttribute('messaging.message.delivery_count', deliveryCount);
        try {
          await handler(payload, {
            subject: m.subject,
            deliveryCount,
            msgId: headers['Nats-Msg-Id'],
            headers,
            streamSeq: m.seq,
          });
        } catch (err) {
          const envelope =
            err instanceof ServiceError
              ? err.toEnvelope()
              : {
                  success: false as const,
                  error: (err as Error)?.message ?? String(err),
                  code: ErrorCode.INTERNAL,
                };
          if (deliveryCount >= consumerDef.maxDeliver) {
            log.error(
              { err, subject: m.subject, seq: m.seq, deliveryCount },
              'last delivery failed; dead-lettered',
            );
            await deadLetterAndTerm(
              m,
              'max_deliveries',
              envelope,
              headers,
              decoded.ok ? decoded.value : undefined,
            );
          } else {
            const delay = retryDelay(deliveryCount);
            log.warn(
              { err, subject: m.subject, seq: m.seq, deliveryCount, delay },
              'handler failed; will retry',
            );
            m.nak(delay);
          }
          return;
        }
        // Not confirmed (ackAck would cost a server round trip per message): a lost ack only means a
        // redelivery, which every handler must take anyway (at-least-once delivery).
        m.ack();
      },
      headers,
    );
  };

  const retryDelay = (deliveryCount: number): number => {
    const delays = consumerDef.backoffMs?.length ? consumerDef.backoffMs : (opts.retryDelayMs ?? 1000);
    if (typeof delays === 'number') return delays;
    return delays[Math.min(deliveryCount - 1, delays.length - 1)];
  };

  const deadLetterAndTerm = async (
    m: JsMsg,
    reason: string,
    error: ErrorEnvelope,
    headers: Record<string, string>,
    value: unknown,
  ): Promise<void> => {
    const zdr = withZeroDataRetention(value);
    const letter: DeadLetter = {
      originalSubject: m.subject,
      reason,
      error,
      ...(zdr
        ? { payload: JSON.stringify(identifiers(value as Record<string, unknown>)), payloadEncoding: 'utf8' }
        : describeBytes(m.data)),
      headers,
      failedAt: new Date().toISOString(),
      deliveryCount: m.info.deliveryCount,
      ...(zdr ? { redacted: true } : {}),
    };
    try {
      const checked = DeadLetter.parse(letter);
      await js.publish(deadLetterSubject(m.subject), encodeJson(checked), {
        headers: recordToHeaders(outgoingHeaders()),
      });
      // No reason text: nats-server 2.9 does not recognise "+TERM <reason>" as a term.
      m.term();
    } catch (err) {
      // Without a stored dead letter the message must not vanish: let JetStream redeliver it.
      log.error(
        { err, subject: m.subject, seq: m.seq },
        'dead-lettering failed; message left for redelivery',
      );
      m.nak(retryDelay(m.info.deliveryCount));
      return;
    }
    if (!zdr) return;
    // Terminated is not gone: a limits stream keeps the message until its max age.
    await erase(m.seq).catch((err: unknown) =>
      log.error({ err, subject: m.subject, seq: m.seq }, 'zero-data-retention message not deleted'),
    );
  };

  // "Still working" every heartbeatMs while the message waits or runs; stopped when it settles or,
  // the connection being closed, when the message is the server's to redeliver (a handler that
  // never settles must not keep a timer alive for ever).
  const heartbeatOf = (m: JsMsg): NodeJS.Timeout => {
    const timer = setInterval(() => {
      try {
        m.working();
      } catch {
        clearInterval(timer);
      }
    }, heartbeatMs);
    return timer;
  };

  const pump = (): void => {
    while (!stopping && active < concurrency && waiting.length > 0) {
      const { m, heartbeat } = waiting.shift()!;
      active++;
      const task: Promise<void> = process(m)
        .catch((err: unknown) => log.error({ err, seq: m.seq }, 'message processing failed'))
        .finally(() => {
          clearInterval(heartbeat);
          inflight.delete(task);
          active--;
          pump();
        });
      inflight.add(task);
    }
  };

  // Messages are taken as they arrive (the client pulls ahead of the handlers): each one's ack wait
  // runs from its delivery, so its heartbeat starts at once, not when a slot frees up.
  const messages: ConsumerMessages = await consumer.consume({
    max_messages: concurrency,
    callback: (m) => {
      if (stopping) {
        m.nak();
        return;
      }
      waiting.push({ m, heartbeat: heartbeatOf(m) });
      pump();
    },
  });

  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      stopped ??= (async () => {
        stopping = true;
        await messages.close().catch(() => undefined);
        // Not started: handed back for immediate redelivery (to another replica) instead of waiting
        // out their ack wait.
        for (const { m, heartbeat } of waiting.splice(0)) {
          clearInterval(heartbeat);
          m.nak();
        }
        await Promise.all([...inflight]);
      })();
      return stopped;
    },
  };
}

/** The message ran with zero data retention: a JSON object with `zeroDataRetention: true`. */
function withZeroDataRetention(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<string, unknown>).zeroDataRetention === true
  );
}

/** Longest identifier value a redacted dead letter keeps. */
const MAX_IDENTIFIER_CHARS = 200;

/**
 * What a redacted dead letter keeps of a message: its top-level identifiers (`id`, `type`, `seq` and
 * keys ending in `Id`) with string or number values, enough to find its job and team, nothing of its
 * content.
 */
export function identifiers(value: Record<string, unknown>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!(key === 'id' || key === 'type' || key === 'seq' || /^[a-z][A-Za-z]*Id$/.test(key))) continue;
    if ((typeof v === 'string' && v.length <= MAX_IDENTIFIER_CHARS) || typeof v === 'number') out[key] = v;
  }
  return out;
}

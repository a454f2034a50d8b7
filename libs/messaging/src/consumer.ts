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
  /** Redelivery delay after a failure when the consumer has no back-off list (default 1000 ms). */
  retryDelayMs?: number;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

/** A counting semaphore; `acquire` resolves when a slot is free. */
class Slots {
  private free: number;
  private readonly waiters: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * Runs a durable pull consumer:
 * - the payload is validated first; a message that is not valid JSON or fails the schema is poison:
 *   it goes to the dead-letter subject with the reason and is terminated, never handed to the handler;
 * - the message is acked once the handler resolves (without waiting for the server's confirmation:
 *   handlers are idempotent, a lost ack is a redelivery); while it runs, `working()` keeps it from
 *   being redelivered to another worker;
 * - a handler failure naks with the consumer's back-off delay, and on the last allowed delivery the
 *   message is dead-lettered and terminated instead.
 */
export async function startConsumer<D extends StreamMessageDef>(
  js: JetStreamClient,
  logger: Logger,
  def: D,
  consumerDef: ConsumerDef,
  handler: ConsumeHandler<D>,
  opts: ConsumeOptions,
): Promise<RunningConsumer> {
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const log = logger.child({ stream: consumerDef.stream, consumer: consumerDef.durable });
  const consumer = await js.consumers.get(consumerDef.stream, consumerDef.durable);
  // A small buffer: fetched-but-waiting messages count against their ack wait.
  const messages: ConsumerMessages = await consumer.consume({ max_messages: concurrency });
  const slots = new Slots(concurrency);
  const inflight = new Set<Promise<void>>();
  const effectiveAckWait = Math.min(consumerDef.ackWaitMs, consumerDef.backoffMs?.[0] ?? Infinity);

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
      await deadLetterAndTerm(m, 'invalid_payload', envelope, headers);
      return;
    }
    await withMessagingSpan(
      'consumer',
      m.subject,
      async (span) => {
        span.setAttribute('messaging.message.delivery_count', deliveryCount);
        const heartbeat = setInterval(() => m.working(), Math.max(250, Math.floor(effectiveAckWait / 2)));
        try {
          await handler(payload, {
            subject: m.subject,
            deliveryCount,
            msgId: headers['Nats-Msg-Id'],
            headers,
            streamSeq: m.seq,
          });
        } catch (err) {
          clearInterval(heartbeat);
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
            await deadLetterAndTerm(m, 'max_deliveries', envelope, headers);
          } else {
            const delay = retryDelay(deliveryCount);
            log.warn(
              { err, subject: m.subject, seq: m.seq, deliveryCount, delay },
              'handler failed; will retry',
            );
            m.nak(delay);
          }
          return;
        } finally {
          clearInterval(heartbeat);
        }
        // Not confirmed (ackAck would cost a server round trip per message): a lost ack only means a
        // redelivery, which every handler must take anyway (at-least-once delivery).
        m.ack();
      },
      headers,
    );
  };

  const retryDelay = (deliveryCount: number): number => {
    const backoff = consumerDef.backoffMs;
    if (backoff?.length) return backoff[Math.min(deliveryCount - 1, backoff.length - 1)];
    return opts.retryDelayMs ?? 1000;
  };

  const deadLetterAndTerm = async (
    m: JsMsg,
    reason: string,
    error: ErrorEnvelope,
    headers: Record<string, string>,
  ): Promise<void> => {
    const letter: DeadLetter = {
      originalSubject: m.subject,
      reason,
      error,
      ...describeBytes(m.data),
      headers,
      failedAt: new Date().toISOString(),
      deliveryCount: m.info.deliveryCount,
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
    }
  };

  const loop = (async () => {
    for await (const m of messages) {
      await slots.acquire();
      const task: Promise<void> = process(m)
        .catch((err: unknown) => log.error({ err, seq: m.seq }, 'message processing failed'))
        .finally(() => {
          inflight.delete(task);
          slots.release();
        });
      inflight.add(task);
    }
  })();

  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      stopped ??= (async () => {
        await messages.close().catch(() => undefined);
        await loop.catch((err: unknown) => log.warn({ err }, 'consumer loop ended with an error'));
        await Promise.all([...inflight]);
      })();
      return stopped;
    },
  };
}

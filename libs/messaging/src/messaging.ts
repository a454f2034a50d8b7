import { connect, nanos, type NatsConnection, type Msg, type Subscription } from '@nats-io/transport-node';
import {
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  AckPolicy,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import {
  ErrorCode,
  ErrorEnvelope,
  ServiceError,
  type ConsumerDef,
  type RpcDef,
  type RpcReply,
  type RpcRequest,
  type StreamDef,
  type StreamMessageDef,
} from '@wds/contracts';
import type { Logger } from '@wds/observability';
import type { z } from 'zod';
import { decodeJson, encodeJson, headersToRecord, recordToHeaders, subjectMatches, validate } from './codec';
import { startConsumer, type ConsumeOptions, type ConsumeHandler, type RunningConsumer } from './consumer';
import { ALIVE_HEADER, ResponderLiveness, keepAlive } from './liveness';
import { outgoingHeaders, withMessagingSpan } from './tracing';

/** Set on a reply whose body is an ErrorEnvelope. */
export const ERROR_HEADER = 'Wds-Error';
const RETRY_AFTER_HEADER = 'Wds-Retry-After';
/** Retry-After of a request no process answered (it reaches HTTP clients as a 503). */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/**
 * A request no process answered (no responder, a timeout, a responder that fell silent, a closed
 * connection), as opposed to a SERVICE_UNAVAILABLE a responder sent back: callers that name the
 * cause to their users tell the two apart with `instanceof`.
 */
export class NoAnswerError extends ServiceError {}

export interface ConnectOptions {
  servers: string;
  name: string;
  logger: Logger;
}

/**
 * `NATS_URL`'s comma-separated servers, with the credentials a URL may carry taken out of it as the
 * client's options (the NATS client does not read them from the URL): `nats://<token>@host:port`
 * for token authentication, `nats://<user>:<password>@host:port` for a user and password. All the
 * servers that carry credentials must carry the same.
 */
export function natsServers(list: string): {
  servers: string[];
  token?: string;
  user?: string;
  pass?: string;
} {
  const servers: string[] = [];
  let auth: { token?: string; user?: string; pass?: string } | undefined;
  let authOf = '';
  for (const raw of list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = raw.lastIndexOf('@');
    if (at < 0) {
      servers.push(raw);
      continue;
    }
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(raw)?.[0] ?? '';
    const userinfo = raw.slice(scheme.length, at);
    const colon = userinfo.indexOf(':');
    const user = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
    const these = colon < 0 ? { token: user } : { user, pass: decodeURIComponent(userinfo.slice(colon + 1)) };
    const key = JSON.stringify(these);
    if (auth && key !== authOf) {
      throw new Error('NATS_URL: every server must carry the same credentials');
    }
    auth = these;
    authOf = key;
    servers.push(scheme + raw.slice(at + 1));
  }
  return { servers, ...auth };
}

export type RpcHandler<D extends RpcDef> = (
  req: z.output<D['request']>,
  ctx: { headers: Record<string, string> },
) => Promise<z.input<D['reply']>>;

/**
 * Typed NATS messaging: RPC over core NATS with queue groups, durable work on JetStream.
 * Every message is validated with its contract schema at both ends, carries W3C trace context in
 * headers, and errors travel as the shared ErrorEnvelope.
 */
export class Messaging {
  private readonly subscriptions = new Set<Subscription>();
  private readonly consumers = new Set<RunningConsumer>();
  private readonly inflight = new Set<Promise<void>>();
  private draining = false;
  private connected = true;
  /** Gives up requests whose responder fell silent (died) instead of waiting out their timeout. */
  private readonly liveness: ResponderLiveness;

  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    private readonly logger: Logger,
  ) {
    this.liveness = new ResponderLiveness(nc);
  }

  static async connect(opts: ConnectOptions): Promise<Messaging> {
    const nc = await connect({
      ...natsServers(opts.servers),
      name: opts.name,
      // Keep retrying forever after the first connection: a NATS restart must not kill services.
      maxReconnectAttempts: -1,
      // A restarted nats-server is found within a quarter second (attempts are local connects).
      reconnectTimeWait: 250,
      // The client would otherwise build an Error (a stack capture) for every request and publish
      // just in case it fails; our errors are mapped to ServiceError with the subject anyway.
      noAsyncTraces: true,
    });
    const logger = opts.logger.child({ component: 'messaging' });
    const jsm = await jetstreamManager(nc);
    const messaging = new Messaging(nc, jetstream(nc), jsm, logger);
    void messaging.watchStatus();
    return messaging;
  }

  private async watchStatus(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') this.connected = false;
      if (s.type === 'reconnect') {
        this.connected = true;
        this.liveness.reconnected();
      }
      if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error') {
        this.logger.warn(
          { status: s.type, server: 'server' in s ? s.server : undefined },
          'NATS connection status',
        );
      }
    }
  }

  isConnected(): boolean {
    return this.connected && !this.nc.isClosed() && !this.nc.isDraining();
  }

  /** Creates missing streams and updates existing ones to the definition. */
  async ensureStreams(defs: readonly StreamDef[]): Promise<void> {
    for (const def of defs) {
      const config = {
        name: def.name,
        subjects: [...def.subjects],
        retention: def.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
        storage: StorageType.File,
        max_age: nanos(def.maxAgeMs),
        duplicate_window: nanos(def.duplicateWindowMs),
      };
      try {
        await this.jsm.streams.info(def.name);
      } catch (err) {
        if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
        try {
          await this.jsm.streams.add(config);
          continue;
        } catch (addErr) {
          // Another process starting at the same moment created it first (the server then answers
          // "subjects overlap" or "name in use"): update it like any existing stream.
          if (!(await this.streamExists(def.name))) throw addErr;
        }
      }
      const { name, ...update } = config;
      await this.jsm.streams.update(name, update);
    }
  }

  private async streamExists(name: string): Promise<boolean> {
    try {
      await this.jsm.streams.info(name);
      return true;
    } catch {
      return false;
    }
  }

  /** Creates or updates a durable pull consumer. */
  async ensureConsumer(def: ConsumerDef): Promise<void> {
    const config = {
      durable_name: def.durable,
      filter_subject: def.filterSubject,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(def.ackWaitMs),
      max_deliver: def.maxDeliver,
      backoff: def.backoffMs?.length ? def.backoffMs.map((ms) => nanos(ms)) : undefined,
    };
    try {
      await this.jsm.consumers.info(def.stream, def.durable);
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound) {
        await this.jsm.consumers.add(def.stream, config);
        return;
      }
      throw err;
    }
    const { durable_name: _name, deliver_policy: _policy, ...update } = config;
    await this.jsm.consumers.update(def.stream, def.durable, update);
  }

  /** Sends a validated request and returns the validated reply; error replies are thrown as ServiceError. */
  async request<D extends RpcDef>(
    def: D,
    payload: RpcRequest<D>,
    opts: { timeoutMs?: number; headers?: Record<string, string> } = {},
  ): Promise<RpcReply<D>> {
    const body = validate(def.request, payload, `request to ${def.subject}`);
    return withMessagingSpan('client', def.subject, async () => {
      let reply: Msg;
      try {
        reply = await this.liveness.watch(
          (alive) =>
            this.nc.request(def.subject, encodeJson(body), {
              timeout: opts.timeoutMs ?? 10_000,
              headers: recordToHeaders(outgoingHeaders({ ...opts.headers, [ALIVE_HEADER]: alive })),
            }),
          () => new Error('responder fell silent'),
        );
      } catch {
        // No responders, timeout, a responder that fell silent or a closed connection: to the caller
        // all mean "try again shortly" (a killed process is back within seconds).
        throw new NoAnswerError(
          ErrorCode.SERVICE_UNAVAILABLE,
          `service for ${def.subject} is unavailable`,
          undefined,
          UNAVAILABLE_RETRY_AFTER_SECONDS,
        );
      }
      const decoded = decodeJson(reply.data);
      if (reply.headers?.get(ERROR_HEADER)) {
        const env = decoded.ok ? ErrorEnvelope.safeParse(decoded.value) : undefined;
        if (!env?.success)
          throw new ServiceError(ErrorCode.INTERNAL, `malformed error reply from ${def.subject}`);
        const retryAfter = Number(reply.headers.get(RETRY_AFTER_HEADER)) || undefined;
        const base = ServiceError.fromEnvelope(env.data);
        throw new ServiceError(base.code, base.message, base.details, retryAfter);
      }
      if (!decoded.ok) throw new ServiceError(ErrorCode.INTERNAL, `reply from ${def.subject} is not JSON`);
      try {
        return validate(def.reply, decoded.value, `reply from ${def.subject}`) as RpcReply<D>;
      } catch (err) {
        // A reply that breaks the contract is the server's fault, not the caller's.
        throw new ServiceError(ErrorCode.INTERNAL, (err as Error).message);
      }
    });
  }

  /**
   * Serves an RPC in its queue group; one replica answers each request. The returned function
   * stops serving it (for subjects that live as long as one piece of work, e.g. a run's cancel).
   */
  serve<D extends RpcDef>(def: D, handler: RpcHandler<D>): () => void {
    const sub = this.nc.subscribe(def.subject, {
      queue: def.queue,
      callback: (err, msg) => {
        if (err) {
          this.logger.error({ err, subject: def.subject }, 'RPC subscription failed');
          return;
        }
        const task = this.answer(def, handler, msg).finally(() => this.inflight.delete(task));
        this.inflight.add(task);
      },
    });
    this.subscriptions.add(sub);
    return () => {
      if (!this.subscriptions.delete(sub)) return;
      if (!this.nc.isClosed()) sub.unsubscribe();
    };
  }

  private async answer<D extends RpcDef>(def: D, handler: RpcHandler<D>, msg: Msg): Promise<void> {
    const headers = headersToRecord(msg.headers);
    const stopKeepAlive = keepAlive(this.nc, headers[ALIVE_HEADER]);
    try {
      await this.answerWith(def, handler, msg, headers);
    } finally {
      stopKeepAlive();
    }
  }

  private async answerWith<D extends RpcDef>(
    def: D,
    handler: RpcHandler<D>,
    msg: Msg,
    headers: Record<string, string>,
  ): Promise<void> {
    await withMessagingSpan(
      'server',
      def.subject,
      async (span) => {
        let body: Uint8Array;
        let failed: ServiceError | undefined;
        try {
          const decoded = decodeJson(msg.data);
          if (!decoded.ok) throw new ServiceError(ErrorCode.BAD_REQUEST, 'request body is not valid JSON');
          const req = validate(def.request, decoded.value, 'request') as z.output<D['request']>;
          const result = await handler(req, { headers });
          // Replies are validated where they arrive (the caller parses every reply with its schema,
          // turning a broken one into INTERNAL); checking here too doubled the cost of large replies.
          body = encodeJson(result);
        } catch (err) {
          failed = err instanceof ServiceError ? err : undefined;
          if (!failed) {
            this.logger.error({ err, subject: def.subject }, 'RPC handler failed');
            failed = new ServiceError(ErrorCode.INTERNAL, 'internal error');
          }
          span.setAttribute('wds.error_code', failed.code);
          body = encodeJson(failed.toEnvelope());
        }
        if (!msg.reply) return;
        const replyHeaders: Record<string, string> = {};
        if (failed) {
          replyHeaders[ERROR_HEADER] = failed.code;
          if (failed.retryAfterSeconds !== undefined)
            replyHeaders[RETRY_AFTER_HEADER] = String(failed.retryAfterSeconds);
        }
        msg.respond(
          body,
          Object.keys(replyHeaders).length ? { headers: recordToHeaders(replyHeaders) } : undefined,
        );
      },
      headers,
    );
  }

  /** Validated JetStream publish; `msgId` makes repeated publishes within the stream's window a no-op. */
  async publish<D extends StreamMessageDef>(
    def: D,
    payload: z.input<D['payload']>,
    opts: { subject?: string; msgId?: string; headers?: Record<string, string> } = {},
  ): Promise<void> {
    const subject = opts.subject ?? def.subject;
    if (!subjectMatches(def.subject, subject) || /[*>]/.test(subject)) {
      throw new ServiceError(
        ErrorCode.INTERNAL,
        `subject ${subject} is not a concrete subject of ${def.subject}`,
      );
    }
    validate(def.payload, payload, `message for ${subject}`);
    await withMessagingSpan('producer', subject, async () => {
      await this.js.publish(subject, encodeJson(payload), {
        msgID: opts.msgId,
        headers: recordToHeaders(outgoingHeaders(opts.headers)),
      });
    });
  }

  /** Ensures the durable consumer, then processes its messages (see `startConsumer` for the delivery rules). */
  async consume<D extends StreamMessageDef>(
    def: D,
    consumer: ConsumerDef,
    handler: ConsumeHandler<D>,
    opts: ConsumeOptions = {},
  ): Promise<{ stop(): Promise<void> }> {
    await this.ensureConsumer(consumer);
    const running = await startConsumer(this.js, this.logger, def, consumer, handler, opts, (seq) =>
      this.deleteMessage(consumer.stream, seq),
    );
    this.consumers.add(running);
    return {
      stop: async () => {
        this.consumers.delete(running);
        await running.stop();
      },
    };
  }

  /**
   * Removes one message from a stream (its bytes overwritten, not just unlinked), e.g. an event that
   * must not stay for the stream's retention. True when removed, false when the stream no longer
   * holds that sequence (already deleted or aged out), so a redelivered handler can call it again.
   */
  async deleteMessage(stream: StreamDef | string, seq: number): Promise<boolean> {
    const name = typeof stream === 'string' ? stream : stream.name;
    try {
      return await this.jsm.streams.deleteMessage(name, seq, true);
    } catch (err) {
      // The server answers a missing sequence with its generic "delete failed" code (10057, "no
      // message found" or "stream store EOF"), so look before calling that a success.
      if (err instanceof JetStreamApiError && (await this.jsm.streams.getMessage(name, { seq })) === null)
        return false;
      throw err;
    }
  }

  /** Stops consumers (letting in-flight handlers finish), drains subscriptions, closes the connection. */
  async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    await Promise.all([...this.consumers].map((c) => c.stop()));
    this.consumers.clear();
    if (this.nc.isClosed()) return;
    await Promise.all([...this.subscriptions].map((s) => s.drain().catch(() => undefined)));
    await Promise.all([...this.inflight]);
    this.liveness.stop();
    await this.nc.drain().catch(() => undefined);
  }
}

import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import type { Logger } from '@wds/observability';
import type { Messaging } from '../messaging';
import { planBindings, settle, type Binding } from './bindings';
import { JetStreamContext, WdsRpcContext } from './context';

export interface WdsTransportOptions {
  messaging: Messaging;
  /** The service's parsed config, handed to `concurrency: (config) => n` of `jetStream(...)`. */
  config?: unknown;
  logger: Logger;
}

type Status = 'listening' | 'closed';

/**
 * Nest's custom transport strategy over `@wds/messaging`: `@MessagePattern(...rpc(def))` handlers are
 * served as core NATS RPCs in their queue group, `@EventPattern(...jetStream(def, consumer))` handlers
 * as durable JetStream pull consumers. Everything ADR 0001 guarantees comes from `Messaging` itself:
 * both ends validate with the zod contract, W3C trace context crosses in headers and wraps the
 * handler in a server/consumer span, errors travel as the one ErrorEnvelope (`ServiceError`), and a
 * consumer acks once the handler resolves, naks with back-off when it fails, and dead-letters invalid
 * payloads and last deliveries.
 *
 * Handlers run through Nest's context (guards, interceptors, pipes, filters); the service connects
 * the transport with `connectWdsTransport`, which installs the filter that passes errors through.
 * `close()` (on `app.close()`) stops the consumers and lets their in-flight messages finish; the RPC
 * subscriptions are drained with the connection (`Messaging.drain()`), as before the transport.
 */
export class WdsTransportServer
  extends Server<Record<string, never>, Status>
  implements CustomTransportStrategy
{
  /** Handler failures must reach the transport (they decide nak or dead letter), not Nest's logger. */
  override readonly propagatesEventHandlerErrors = true;
  private readonly consumers: { stop(): Promise<void> }[] = [];
  private readonly log: Logger;

  constructor(private readonly options: WdsTransportOptions) {
    super();
    this.log = options.logger.child({ component: 'wds-transport' });
  }

  /** The bindings Nest registered, checked (a handler without its contract fails the start). */
  bindings(): Binding[] {
    return planBindings(this.getHandlers(), this.options.config);
  }

  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      const bindings = this.bindings();
      const { messaging } = this.options;
      for (const b of bindings) {
        if (b.kind !== 'rpc') continue;
        const { def, handler } = b;
        messaging.serve(
          def,
          (req, ctx) => settle(handler(req, new WdsRpcContext([def.subject, ctx.headers]))) as Promise<never>,
        );
      }
      for (const b of bindings) {
        if (b.kind !== 'consumer') continue;
        const { handler } = b;
        this.consumers.push(
          await messaging.consume(
            b.def,
            b.consumer,
            async (payload, ctx) => {
              await settle(handler(payload, new JetStreamContext([ctx])));
            },
            b.options,
          ),
        );
      }
      this.log.debug(
        {
          rpcs: bindings.filter((b) => b.kind === 'rpc').map((b) => b.def.subject),
          consumers: bindings.flatMap((b) => (b.kind === 'consumer' ? [b.consumer.durable] : [])),
        },
        'message handlers bound',
      );
      this._status$.next('listening');
      callback();
    } catch (err) {
      await this.close();
      callback(err);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.consumers.splice(0).map((c) => c.stop()));
    this._status$.next('closed');
  }

  on(): never {
    throw new Error('WdsTransportServer has no events; the NATS connection status is logged by Messaging');
  }

  unwrap<T>(): T {
    return this.options.messaging as T;
  }
}

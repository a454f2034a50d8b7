import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import type { RpcDef, RpcReply, RpcRequest, StreamMessageDef } from '@wds/contracts';
import type { Observable } from 'rxjs';
import type { z } from 'zod';
import type { Messaging } from '../messaging';

/** Per-message options, Nest's record-builder idiom (`new WdsRecord(data, { timeoutMs })`). */
export class WdsRecord<T> {
  constructor(
    readonly data: T,
    readonly options: {
      timeoutMs?: number;
      headers?: Record<string, string>;
      msgId?: string;
      subject?: string;
    } = {},
  ) {}
}

function unwrapRecord(data: unknown): { data: unknown; options: WdsRecord<unknown>['options'] } {
  return data instanceof WdsRecord ? { data: data.data, options: data.options } : { data, options: {} };
}

function isDef(pattern: unknown, kind: 'rpc' | 'stream'): boolean {
  return typeof pattern === 'object' && pattern !== null && (pattern as { kind?: unknown }).kind === kind;
}

/**
 * Nest's `ClientProxy` over `@wds/messaging`, with contract definitions as patterns:
 * `send(RPC.x, req)` is a validated request (reply validated, errors thrown as `ServiceError`,
 * trace context sent), `emit(EVENTS.y, payload)` a validated JetStream publish (a `WdsRecord` adds
 * `msgId` for de-duplication or a concrete `subject`). The connection belongs to the service
 * (`@wds/service-kit` opens and drains it), so `connect()` and `close()` do nothing.
 */
export class WdsClientProxy extends ClientProxy {
  constructor(private readonly messaging: Messaging) {
    super();
  }

  override send<D extends RpcDef>(
    def: D,
    data: RpcRequest<D> | WdsRecord<RpcRequest<D>>,
  ): Observable<RpcReply<D>>;
  override send<TResult = unknown, TInput = unknown>(pattern: unknown, data: TInput): Observable<TResult>;
  override send(pattern: unknown, data: unknown): Observable<unknown> {
    return super.send(pattern, data);
  }

  override emit<D extends StreamMessageDef>(
    def: D,
    data: z.input<D['payload']> | WdsRecord<z.input<D['payload']>>,
  ): Observable<undefined>;
  override emit<TResult = unknown, TInput = unknown>(pattern: unknown, data: TInput): Observable<TResult>;
  override emit(pattern: unknown, data: unknown): Observable<unknown> {
    return super.emit(pattern, data);
  }

  async connect(): Promise<Messaging> {
    return this.messaging;
  }

  close(): void {
    // The connection is the service's (drained by its stop()).
  }

  unwrap<T>(): T {
    return this.messaging as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    if (!isDef(packet.pattern, 'rpc')) {
      callback({
        err: new TypeError('WdsClientProxy.send takes an RPC definition of @wds/contracts as its pattern'),
        isDisposed: true,
      });
      return () => undefined;
    }
    const def = packet.pattern as RpcDef;
    const { data, options } = unwrapRecord(packet.data);
    let live = true;
    this.messaging.request(def, data, { timeoutMs: options.timeoutMs, headers: options.headers }).then(
      (response) => live && callback({ response, isDisposed: true }),
      (err: unknown) => live && callback({ err, isDisposed: true }),
    );
    // Unsubscribing stops listening; the request itself still runs to its reply or timeout.
    return () => {
      live = false;
    };
  }

  protected async dispatchEvent<T = undefined>(packet: ReadPacket): Promise<T> {
    if (!isDef(packet.pattern, 'stream'))
      throw new TypeError(
        'WdsClientProxy.emit takes a stream message definition of @wds/contracts as its pattern',
      );
    const { data, options } = unwrapRecord(packet.data);
    await this.messaging.publish(packet.pattern as StreamMessageDef, data, {
      msgId: options.msgId,
      subject: options.subject,
      headers: options.headers,
    });
    return undefined as T;
  }
}

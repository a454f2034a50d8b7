import { z } from 'zod';

/**
 * Building blocks of the internal message catalogue. A definition object carries the subject
 * and the zod schemas, so `messaging.request(RPC.x, payload)` / `messaging.publish(EVENTS.y, payload)`
 * type-check against the payload schema and are validated at runtime on both ends.
 *
 * NEVER rename a subject, stream or durable consumer name that has shipped: bump its version
 * (`.v1.` -> `.v2.`) and run both until the old one drains.
 */

/** Request/reply over core NATS, served by a queue group so any replica answers. */
export interface RpcDef<
  Req extends z.ZodType = z.ZodType,
  Res extends z.ZodType = z.ZodType,
  S extends string = string,
> {
  readonly kind: 'rpc';
  readonly subject: S;
  /** Queue group name; one replica of the group answers each request. */
  readonly queue: string;
  readonly request: Req;
  readonly reply: Res;
}

/** A message persisted on a JetStream stream (durable work or a job event). */
export interface StreamMessageDef<P extends z.ZodType = z.ZodType, S extends string = string> {
  readonly kind: 'stream';
  /** Concrete subject, or a prefix ending in `>`/`*` tokens for subjects parameterised at publish time. */
  readonly subject: S;
  readonly stream: string;
  readonly payload: P;
}

export interface StreamDef {
  readonly name: string;
  readonly subjects: readonly string[];
  /** work = WorkQueue retention (a message is gone once acked); events/dlq = Limits retention. */
  readonly retention: 'workqueue' | 'limits';
  readonly maxAgeMs: number;
  readonly duplicateWindowMs: number;
}

export interface ConsumerDef {
  readonly stream: string;
  readonly durable: string;
  readonly filterSubject: string;
  readonly ackWaitMs: number;
  readonly maxDeliver: number;
  /** Back-off between redeliveries (ms); length <= maxDeliver. */
  readonly backoffMs?: readonly number[];
}

export function defineRpc<Req extends z.ZodType, Res extends z.ZodType, S extends string = string>(
  subject: S,
  queue: string,
  request: Req,
  reply: Res,
): RpcDef<Req, Res, S> {
  return { kind: 'rpc', subject, queue, request, reply };
}

export function defineStreamMessage<P extends z.ZodType, S extends string = string>(
  subject: S,
  stream: string,
  payload: P,
): StreamMessageDef<P, S> {
  return { kind: 'stream', subject, stream, payload };
}

export type RpcRequest<D extends RpcDef> = z.input<D['request']>;
/** The request as the handler sees it after parsing (defaults applied). */
export type RpcRequestParsed<D extends RpcDef> = z.output<D['request']>;
export type RpcReply<D extends RpcDef> = z.output<D['reply']>;
export type StreamPayload<D extends StreamMessageDef> = z.output<D['payload']>;

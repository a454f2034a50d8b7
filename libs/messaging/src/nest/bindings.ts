import type { MessageHandler } from '@nestjs/microservices';
import type { ConsumerDef, RpcDef, StreamMessageDef } from '@wds/contracts';
import { isObservable, lastValueFrom } from 'rxjs';
import type { ConsumeOptions } from '../consumer';
import { WDS_EXTRAS, type ConsumerBindingSpec, type RpcBindingSpec } from './patterns';

export interface RpcBinding {
  kind: 'rpc';
  def: RpcDef;
  handler: MessageHandler;
}

export interface ConsumerBinding {
  kind: 'consumer';
  def: StreamMessageDef;
  consumer: ConsumerDef;
  options: ConsumeOptions;
  handler: MessageHandler;
}

export type Binding = RpcBinding | ConsumerBinding;

/** A handler the transport refuses to serve (the service must not start with it). */
export class BindingError extends Error {
  override readonly name = 'BindingError';
}

/**
 * Turns the handlers Nest registered (`@MessagePattern` / `@EventPattern` of controllers) into what
 * the transport serves. Every handler must carry its contract (`rpc(def)` / `jetStream(def, ...)`):
 * a pattern without one would be served unvalidated, so it is refused, as is a request handler with
 * a stream contract (or the reverse), a pattern that is not the contract's subject, two event
 * handlers of one subject (one durable consumer per subject and process) and a durable bound twice.
 * An RPC declared with `rpc(def, { when })` is left out where `when(config)` is false.
 */
export function planBindings(handlers: ReadonlyMap<string, MessageHandler>, config: unknown): Binding[] {
  const bindings: Binding[] = [];
  const durables = new Set<string>();
  for (const [pattern, handler] of handlers) {
    const spec = (handler.extras as Record<string, unknown> | undefined)?.[WDS_EXTRAS] as
      RpcBindingSpec | ConsumerBindingSpec | undefined;
    const what = handler.isEventHandler ? '@EventPattern' : '@MessagePattern';
    if (!spec) {
      throw new BindingError(
        `${what}('${pattern}') has no contract: declare it with ${
          handler.isEventHandler
            ? '@EventPattern(...jetStream(def, consumer))'
            : '@MessagePattern(...rpc(def))'
        }`,
      );
    }
    if (spec.contract.subject !== pattern) {
      throw new BindingError(`${what}('${pattern}') carries the contract of ${spec.contract.subject}`);
    }
    if (!handler.isEventHandler) {
      if (spec.kind !== 'rpc')
        throw new BindingError(`@MessagePattern('${pattern}') needs an RPC contract (rpc(def))`);
      // Not taken by this replica (its config says so): nobody here answers the subject.
      if (spec.when !== undefined && !fromConfig(spec.when, config)) continue;
      bindings.push({ kind: 'rpc', def: spec.contract, handler });
      continue;
    }
    if (spec.kind !== 'consumer')
      throw new BindingError(
        `@EventPattern('${pattern}') needs a stream contract (jetStream(def, consumer))`,
      );
    if (handler.next)
      throw new BindingError(
        `@EventPattern('${pattern}') is declared twice; one durable consumer serves a subject`,
      );
    const consumer = fromConfig(spec.consumer, config);
    if (durables.has(consumer.durable))
      throw new BindingError(`consumer ${consumer.durable} is bound to two handlers`);
    durables.add(consumer.durable);
    bindings.push({
      kind: 'consumer',
      def: spec.contract,
      consumer,
      options: consumeOptions(spec, consumer, config),
      handler,
    });
  }
  return bindings;
}

function fromConfig<T>(value: T | ((config: never) => T), config: unknown): T {
  return typeof value === 'function' ? (value as (c: unknown) => T)(config) : value;
}

function consumeOptions(spec: ConsumerBindingSpec, consumer: ConsumerDef, config: unknown): ConsumeOptions {
  const concurrency = spec.concurrency === undefined ? undefined : fromConfig(spec.concurrency, config);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
    throw new BindingError(
      `consumer ${consumer.durable}: concurrency must be a positive integer, got ${concurrency}`,
    );
  }
  return {
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(spec.retryDelayMs !== undefined ? { retryDelayMs: spec.retryDelayMs } : {}),
  };
}

/**
 * What a Nest handler produced, as one value: Nest hands back the method's result, or an observable
 * (the method's own, or the exception filter's error stream, which rejects here with the original
 * error). A stream of several values answers with the last one.
 */
export async function settle(result: unknown): Promise<unknown> {
  const value = await result;
  return isObservable(value) ? lastValueFrom(value, { defaultValue: undefined }) : value;
}

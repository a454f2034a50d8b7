import type { ConsumerDef, RpcDef, StreamMessageDef } from '@wds/contracts';
import type { z } from 'zod';
import type { ConsumeOptions } from '../consumer';

/** What a `@MessagePattern(...rpc(def))` method returns: the reply as the contract accepts it. */
export type RpcAnswer<D extends RpcDef> = Promise<z.input<D['reply']>>;

/** Key of the transport's own entry in a pattern's Nest `extras`. */
export const WDS_EXTRAS = 'wds';

/** A consumer option fixed in the decorator, or read from the service's parsed config at start. */
export type FromConfig<T> = T | ((config: never) => T);

export interface RpcBindingSpec {
  readonly kind: 'rpc';
  readonly contract: RpcDef;
  /** Served only when this holds for the service's parsed config (default: always). */
  readonly when?: FromConfig<boolean>;
}

export interface ConsumerBindingSpec {
  readonly kind: 'consumer';
  readonly contract: StreamMessageDef;
  readonly consumer: FromConfig<ConsumerDef>;
  readonly concurrency?: FromConfig<number>;
  readonly retryDelayMs?: ConsumeOptions['retryDelayMs'];
}

/**
 * Arguments of Nest's `@MessagePattern` for an RPC of the contracts: the subject as the pattern and
 * the definition in the extras, so the transport validates requests and replies with its schemas.
 *
 *     @MessagePattern(...rpc(RPC.creditsBalance))
 *     balance(@Payload() req: RpcRequestParsed<typeof RPC.creditsBalance>) { ... }
 *
 * `when`: an RPC only some replicas take (by their config) is served only where it holds, e.g.
 * `rpc(BROWSER_AGENT_RPC.run, { when: (c: BrowserPoolConfig) => c.WDS_AGENT_RUNS > 0 })`.
 */
export function rpc<D extends RpcDef, C = never>(
  def: D,
  opts: { when?: (config: C) => boolean } = {},
): [D['subject'], { [WDS_EXTRAS]: RpcBindingSpec }] {
  const spec: RpcBindingSpec = {
    kind: 'rpc',
    contract: def,
    ...(opts.when ? { when: opts.when as FromConfig<boolean> } : {}),
  };
  return [def.subject, { [WDS_EXTRAS]: spec }];
}

/**
 * Arguments of Nest's `@EventPattern` for a durable JetStream consumer: the stream message's subject
 * as the pattern, its definition and the consumer in the extras. The consumer and `concurrency` may
 * be functions of the service's parsed config (the transport is given it at start).
 *
 *     @EventPattern(...jetStream(EVENTS.job, CONSUMERS.webhooks, { concurrency: (c: WebhooksEnv) => c.N }))
 *     record(@Payload() event: JobEvent, @Ctx() ctx: JetStreamContext) { ... }
 */
export function jetStream<D extends StreamMessageDef, C = never>(
  def: D,
  consumer: ConsumerDef | ((config: C) => ConsumerDef),
  opts: {
    concurrency?: number | ((config: C) => number);
    retryDelayMs?: ConsumeOptions['retryDelayMs'];
  } = {},
): [D['subject'], undefined, { [WDS_EXTRAS]: ConsumerBindingSpec }] {
  // The transport slot stays empty: with it, TypeScript picks Nest's untyped `EventPattern`
  // overload, so handlers may type their `@Ctx()` (the typed one wants `...args: unknown[]`).
  return [
    def.subject,
    undefined,
    {
      [WDS_EXTRAS]: {
        kind: 'consumer',
        contract: def,
        consumer: consumer as FromConfig<ConsumerDef>,
        concurrency: opts.concurrency as FromConfig<number> | undefined,
        retryDelayMs: opts.retryDelayMs,
      },
    },
  ];
}

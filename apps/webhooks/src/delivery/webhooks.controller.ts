import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, EVENTS, RPC, type JobEvent, type RpcRequestParsed } from '@wds/contracts';
import { JetStreamContext, Messaging, jetStream, rpc } from '@wds/messaging';
import { DeliveryLoop } from './delivery-loop';
import { ListDeliveriesUseCase, RequeueDeliveriesUseCase } from './list-deliveries.usecase';
import { RecordEventUseCase } from './record-event.usecase';
import type { WebhooksEnv } from './webhooks.env';

/**
 * The service's messages (served by the WDS transport, ADR 0001): job events from the durable
 * `webhooks-v1` consumer into the outbox, acked only once stored (the transport acks when the
 * handler resolves, naks a failure, dead-letters the last delivery), the delivery-log RPC and the
 * re-queue of given-up deliveries.
 */
@Controller()
export class WebhooksController {
  constructor(
    private readonly messaging: Messaging,
    private readonly record: RecordEventUseCase,
    private readonly listDeliveries: ListDeliveriesUseCase,
    private readonly loop: DeliveryLoop,
    private readonly requeueDeliveries: RequeueDeliveriesUseCase,
  ) {}

  @MessagePattern(...rpc(RPC.webhookDeliveriesList))
  list(@Payload() req: RpcRequestParsed<typeof RPC.webhookDeliveriesList>) {
    return this.listDeliveries.execute(req);
  }

  @MessagePattern(...rpc(RPC.webhookDeliveriesRequeue))
  requeue(@Payload() req: RpcRequestParsed<typeof RPC.webhookDeliveriesRequeue>) {
    return this.requeueDeliveries.execute(req);
  }

  @EventPattern(
    ...jetStream(EVENTS.job, CONSUMERS.webhooks, {
      concurrency: (c: WebhooksEnv) => c.WDS_WEBHOOK_CONSUMER_CONCURRENCY,
    }),
  )
  async jobEvent(@Payload() event: JobEvent, @Ctx() ctx: JetStreamContext): Promise<void> {
    if (await this.record.execute(event)) this.loop.wake();
    // A zero-data-retention event lives on in its outbox row only (if any), not for the
    // stream's days. Deleted before the ack: a failed delete is retried with the redelivery.
    if (event.zeroDataRetention)
      await this.messaging.deleteMessage(CONSUMERS.webhooks.stream, ctx.getStreamSeq());
  }
}

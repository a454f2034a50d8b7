import type {
  WebhookDeliveriesListReply,
  WebhookDeliveriesListRequest,
  WebhookDeliveriesRequeueReply,
  WebhookDeliveriesRequeueRequest,
} from '@wds/contracts';
import type { DeliveryStore } from './delivery-store';

/** The delivery log of a job for the team that owns it (another team's job reads as empty). */
export class ListDeliveriesUseCase {
  constructor(private readonly store: DeliveryStore) {}

  execute(req: WebhookDeliveriesListRequest): Promise<WebhookDeliveriesListReply> {
    return this.store.list(req.teamId, req.jobId, req.limit, req.cursor);
  }
}

/** Sends a team's given-up deliveries again; the delivery loop is woken to claim them at once. */
export class RequeueDeliveriesUseCase {
  constructor(
    private readonly store: DeliveryStore,
    private readonly wake: () => void,
  ) {}

  async execute(req: WebhookDeliveriesRequeueRequest): Promise<WebhookDeliveriesRequeueReply> {
    const result = await this.store.requeue(req);
    if (result.requeued > 0) this.wake();
    return result;
  }
}

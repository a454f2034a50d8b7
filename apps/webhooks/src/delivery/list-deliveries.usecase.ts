import type { WebhookDeliveriesListReply, WebhookDeliveriesListRequest } from '@wds/contracts';
import type { DeliveryStore } from './delivery-store';

/** The delivery log of a job for the team that owns it (another team's job reads as empty). */
export class ListDeliveriesUseCase {
  constructor(private readonly store: DeliveryStore) {}

  execute(req: WebhookDeliveriesListRequest): Promise<WebhookDeliveriesListReply> {
    return this.store.list(req.teamId, req.jobId, req.limit, req.cursor);
  }
}

import type { JobEvent } from '@wds/contracts';
import { planDelivery } from './delivery-plan';
import type { DeliveryStore } from './delivery-store';

/**
 * A job event from the stream becomes an outbox row (once per webhookId, however often the event
 * is redelivered); events without a webhook or outside its `events` filter are dropped.
 */
export class RecordEventUseCase {
  constructor(
    private readonly store: DeliveryStore,
    private readonly settleMs: number,
  ) {}

  /** True when a new delivery was recorded. */
  async execute(event: JobEvent): Promise<boolean> {
    const planned = planDelivery(event);
    if (!planned) return false;
    return this.store.insert(planned, this.settleMs);
  }
}

import { ScrapeHitBatch, STREAMS } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';

/** Most stream messages one lookup reads; the stream normally holds a few batches at most. */
const SCAN_LIMIT = 1024;

/** Port: hit batches published by gateways but not stored as jobs yet (still in the stream). */
export abstract class PendingHits {
  /** The pending batch holding `jobId`'s hit, if any. */
  abstract find(jobId: string): Promise<ScrapeHitBatch | undefined>;
}

/**
 * Reads the work-queue stream directly: a batch leaves it once the consumer has stored and acked
 * it, so a hit answered by a gateway is always either a job row or in one of these messages. Used
 * only when GET asks for a job that is not (yet) a row.
 */
export class StreamPendingHits extends PendingHits {
  constructor(private readonly messaging: Messaging) {
    super();
  }

  async find(jobId: string): Promise<ScrapeHitBatch | undefined> {
    const name = STREAMS.WDS_SCRAPE_HITS_V1.name;
    const { state } = await this.messaging.jsm.streams.info(name);
    if (state.messages === 0) return undefined;
    const last = Math.min(state.last_seq, state.first_seq + SCAN_LIMIT - 1);
    for (let seq = state.first_seq; seq <= last; seq++) {
      // Null for a sequence already acked and deleted.
      const msg = await this.messaging.jsm.streams.getMessage(name, { seq });
      if (!msg) continue;
      const parsed = ScrapeHitBatch.safeParse(msg.json());
      if (parsed.success && parsed.data.hits.some((h) => h.jobId === jobId)) return parsed.data;
    }
    return undefined;
  }
}

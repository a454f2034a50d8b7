import { SCRAPE_RECORD_HITS_MAX, SCRAPE_RPC, type ScrapeRecordHitsRequest } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';

type Hit = ScrapeRecordHitsRequest['hits'][number];

interface Waiting {
  hit: Hit;
  resolve: (recorded: boolean) => void;
  reject: (err: unknown) => void;
}

/** Batches in flight at once; further hits wait and go together in the next batch. */
const MAX_IN_FLIGHT = 2;
const RECORD_TIMEOUT_MS = 10_000;

/**
 * Has the scraper record cache hits this gateway answered itself, in natural batches: hits of the
 * same tick go in one RPC, and hits that arrive while MAX_IN_FLIGHT batches are out go together
 * in the next one. A lone hit waits for nothing but its own round trip; under load one message
 * and one INSERT serve many hits. Each caller learns whether its hit was recorded.
 */
export class HitRecorder {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly messaging: Messaging) {}

  /** True when recorded; false when the scraper no longer holds the entry as the hit saw it. */
  record(hit: Hit): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ hit, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || this.waiting.length === 0) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      void this.send();
    });
  }

  private async send(): Promise<void> {
    if (this.inFlight >= MAX_IN_FLIGHT || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, SCRAPE_RECORD_HITS_MAX);
    this.inFlight++;
    try {
      const reply = await this.messaging.request(
        SCRAPE_RPC.recordHits,
        { hits: batch.map((w) => w.hit) },
        { timeoutMs: RECORD_TIMEOUT_MS },
      );
      const recorded = new Set(reply.recorded);
      for (const w of batch) w.resolve(recorded.has(w.hit.jobId));
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}

import type { StreamDef } from './define';

/*
 * NEVER rename a shipped stream, subject or durable consumer: bump the version (`_V1` -> `_V2`,
 * `.v1.` -> `.v2.`) and run both until the old one drains.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Publishes carrying the same Nats-Msg-Id within this window are stored once. */
export const DUPLICATE_WINDOW_MS = 2 * MINUTE;

export const STREAMS = {
  /** Durable work (crawl and batch page tasks); a message is gone once acked. */
  WDS_WORK_V1: {
    name: 'WDS_WORK_V1',
    subjects: ['wds.work.v1.>'],
    retention: 'workqueue',
    // Jobs expire after a day, so older unconsumed work is worthless.
    maxAgeMs: DAY,
    duplicateWindowMs: DUPLICATE_WINDOW_MS,
  },
  /**
   * Cache hits answered by gateways from their hot copies, until the scraper has stored them as
   * jobs (ADR 0006); a message is gone once acked. The scraper also reads pending batches when a
   * GET asks for a job it does not have yet.
   */
  WDS_SCRAPE_HITS_V1: {
    name: 'WDS_SCRAPE_HITS_V1',
    subjects: ['wds.scraper.v1.hits'],
    retention: 'workqueue',
    maxAgeMs: 7 * DAY,
    duplicateWindowMs: DUPLICATE_WINDOW_MS,
  },
  /**
   * Team activity and LLM token usage (messages/activity), until billing has recorded them; a
   * message is gone once acked. Kept 7 days, so a billing outage of up to a week loses nothing.
   */
  WDS_ACTIVITY_V1: {
    name: 'WDS_ACTIVITY_V1',
    subjects: ['wds.activity.v1.>'],
    retention: 'workqueue',
    maxAgeMs: 7 * DAY,
    duplicateWindowMs: DUPLICATE_WINDOW_MS,
  },
  /** Job events (webhook sources), kept for replay and debugging. */
  WDS_EVENTS_V1: {
    name: 'WDS_EVENTS_V1',
    subjects: ['wds.events.v1.>'],
    retention: 'limits',
    maxAgeMs: 7 * DAY,
    duplicateWindowMs: DUPLICATE_WINDOW_MS,
  },
  /** Messages that could not be processed, for inspection and manual replay. */
  WDS_DLQ_V1: {
    name: 'WDS_DLQ_V1',
    subjects: ['wds.dlq.v1.>'],
    retention: 'limits',
    maxAgeMs: 14 * DAY,
    duplicateWindowMs: DUPLICATE_WINDOW_MS,
  },
} as const satisfies Record<string, StreamDef>;

export type StreamName = keyof typeof STREAMS;

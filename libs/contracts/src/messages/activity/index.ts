import { z } from 'zod';
import { ActivityEndpoint, TokenUsageEndpoint } from '../../api/team/team';

/*
 * Team activity and LLM token usage, reported by the services that do billable work and recorded
 * by billing (the owner of activity and usage records). Both travel as batches on the durable
 * stream WDS_ACTIVITY_V1; billing records each event once, by its event id, so a publisher may
 * publish the same event again (after a crash, a redelivery, a retry) without counting it twice.
 * Publish with `ActivityRecorder` from `@wds/credits` (batches, waits for the stream's ack).
 */

/** The public API version activity is recorded under. */
export const ACTIVITY_API_VERSION = 'v2';
/** Longest target (URL or query) kept; longer ones are cut at this length. */
export const ACTIVITY_TARGET_MAX = 2048;
/** Events per message (a message stays far below NATS' 1 MiB with targets at their maximum). */
export const ACTIVITY_BATCH_MAX = 200;

/**
 * One billable public call: a scrape, the start of a crawl or batch, a map, an extract or agent job,
 * a browser session, an interact session, a search. Recorded once per call.
 */
export const ActivityEvent = z.object({
  /**
   * Idempotency key: billing records an event id once. Use `<endpoint>:<id>` for the single record
   * of a call. A republished event must carry the same id AND the same `createdAt`.
   */
  eventId: z.string().min(1).max(300),
  teamId: z.string().min(1).max(200),
  /** The job or session id the call created (what the retrieval endpoints take). */
  id: z.string().min(1).max(200),
  endpoint: ActivityEndpoint,
  apiVersion: z.string().min(1).max(10).default(ACTIVITY_API_VERSION),
  /** When the call was made (ms since the epoch). */
  createdAt: z.int().min(0),
  /**
   * The URL or query the call was about; null for zero-data-retention and lockdown calls, whose
   * URLs are never stored. Cut to ACTIVITY_TARGET_MAX characters.
   */
  target: z
    .string()
    .nullable()
    .transform((t) => (t === null ? null : t.slice(0, ACTIVITY_TARGET_MAX))),
  /** Public lookup prefix of the API key used (never the secret); null when no key was involved. */
  apiKey: z.string().min(1).max(64).nullable(),
  /** Credits the call cost when it was recorded (jobs whose pages are charged later report 0). */
  credits: z.int().min(0).default(0),
});
export type ActivityEvent = z.output<typeof ActivityEvent>;
export type ActivityEventInput = z.input<typeof ActivityEvent>;

/** Tokens an LLM call actually spent (as the model server reported them), never an estimate. */
export const TokenUsageEvent = z.object({
  /** Idempotency key: billing counts an event id once (e.g. `<job id>:<call n>`). */
  eventId: z.string().min(1).max(300),
  teamId: z.string().min(1).max(200),
  /** Public lookup prefix of the API key the work was started with; null when none. */
  apiKey: z.string().min(1).max(64).nullable(),
  endpoint: TokenUsageEndpoint,
  /** The job or session the tokens were spent for, when there is one. */
  jobId: z.string().min(1).max(200).optional(),
  model: z.string().max(200).optional(),
  inputTokens: z.int().min(0),
  outputTokens: z.int().min(0),
  /** When the LLM call finished (ms since the epoch): the month it counts in. */
  at: z.int().min(0),
});
export type TokenUsageEvent = z.output<typeof TokenUsageEvent>;
export type TokenUsageEventInput = z.input<typeof TokenUsageEvent>;

/** One message on WDS_ACTIVITY_V1: activity events and token usage recorded together. */
export const ActivityBatch = z
  .object({
    activity: z.array(ActivityEvent).max(ACTIVITY_BATCH_MAX).default([]),
    tokens: z.array(TokenUsageEvent).max(ACTIVITY_BATCH_MAX).default([]),
  })
  .refine((b) => b.activity.length + b.tokens.length > 0, { message: 'an activity batch is not empty' });
export type ActivityBatch = z.output<typeof ActivityBatch>;
export type ActivityBatchInput = z.input<typeof ActivityBatch>;

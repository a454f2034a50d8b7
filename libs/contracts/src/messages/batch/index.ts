import { z } from 'zod';
import { BATCH_MAX_URLS } from '../../api/batch/batch-scrape';
import { ScrapeOptions } from '../../api/scrape/scrape-request';
import { WebhookConfig } from '../../api/webhooks/webhook-config';
import { defineRpc, defineStreamMessage, type ConsumerDef } from '../define';
import { defineJobRpcs, jobPageConsumer } from '../jobs';
import { PageTask } from '../page-task';
import { STREAMS } from '../streams';

/*
 * The batch service's messages. NEVER rename a shipped subject or durable: bump the version.
 */

/**
 * Creates a batch, or with `appendToId` adds URLs to a batch of the same team (a completed batch is
 * reopened: status back to scraping, a new completed event when the new pages are done). The batch id
 * comes from the gateway, so a retried create is the same batch (insert and pages are idempotent).
 * Errors: NOT_FOUND (unknown or expired `appendToId`), FORBIDDEN (another team's batch), CONFLICT
 * (the batch to append to was cancelled or failed).
 */
export const BatchCreateRequest = z.object({
  batchId: z.uuid(),
  teamId: z.string().min(1),
  /** Valid, scheme-completed URLs (the gateway has set the invalid ones aside). */
  urls: z.array(z.string().min(1).max(8192)).min(1).max(BATCH_MAX_URLS),
  /** Scrape options of every page (re-parsing the validated options is idempotent). */
  scrapeOptions: ScrapeOptions,
  webhook: WebhookConfig.optional(),
  maxConcurrency: z.int().min(1).optional(),
  zeroDataRetention: z.boolean().default(false),
  /** The team's concurrency limit; the batch runs at min(maxConcurrency, this). */
  teamConcurrency: z.int().min(1),
  appendToId: z.uuid().optional(),
});
export type BatchCreateRequest = z.output<typeof BatchCreateRequest>;
export type BatchCreateRequestInput = z.input<typeof BatchCreateRequest>;

/** `added`: URLs new to the batch (a URL already in it is scraped once). */
export const BatchCreateReply = z.object({ id: z.uuid(), added: z.int().min(0) });
export type BatchCreateReply = z.output<typeof BatchCreateReply>;

const BATCH = 'batch' as const;

export const BATCH_RPC = {
  create: defineRpc('wds.batch.v1.batch.create', BATCH, BatchCreateRequest, BatchCreateReply),
  ...defineJobRpcs(BATCH, 'batch'),
} as const;

export const BATCH_WORK = {
  page: defineStreamMessage('wds.work.v1.batch.page', STREAMS.WDS_WORK_V1.name, PageTask),
} as const;

export const BATCH_CONSUMERS = {
  page: jobPageConsumer('batch-page-v1', BATCH_WORK.page.subject),
} as const satisfies Record<string, ConsumerDef>;

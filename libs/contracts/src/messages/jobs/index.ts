import { z } from 'zod';
import { CrawlStatus, JobErrorsResponse } from '../../api/crawl/crawl-responses';
import { defineRpc, type ConsumerDef, type RpcDef } from '../define';
import type { ServiceKind } from '../services';
import { STREAMS } from '../streams';

/*
 * RPCs every page-job service (crawler, batch) serves for the gateway, generated per service by
 * `defineJobRpcs`. Stored documents travel as their raw JSON text so the gateway can splice a
 * 10 MB status page without re-encoding it; documents too large for a reply are read in chunks.
 */

/** Budget of inline document JSON in one status reply (escaping may double it; NATS max is 1 MiB). */
export const JOB_PAGE_REPLY_BYTES = 400 * 1024;
/** A document larger than this is listed by reference and read with the document-chunk RPC. */
export const JOB_INLINE_DOCUMENT_BYTES = 256 * 1024;
/** Raw bytes per document chunk (base64 in the reply). */
export const JOB_DOCUMENT_CHUNK_BYTES = 512 * 1024;
/** One GET status page carries at most this much document JSON (api-v2: `next` covers 10 MB). */
export const JOB_STATUS_PAGE_BYTES = 10 * 1024 * 1024;

export const JobRef = z.object({ teamId: z.string().min(1), jobId: z.uuid() });
export type JobRef = z.output<typeof JobRef>;

export const JobStatusRequest = JobRef.extend({
  /** Documents already read (completion order). */
  skip: z.int().min(0).default(0),
  /** At most this many documents. */
  limit: z.int().min(1).optional(),
  /** Inline document bytes wanted in this reply (capped by JOB_PAGE_REPLY_BYTES). */
  maxBytes: z.int().min(1).default(JOB_PAGE_REPLY_BYTES),
});
export type JobStatusRequest = z.output<typeof JobStatusRequest>;
export type JobStatusRequestInput = z.input<typeof JobStatusRequest>;

export const JobDocumentItem = z.object({
  /** 1-based completion sequence of the page within the job. */
  seq: z.int().min(1),
  /** UTF-8 byte length of the document JSON. */
  bytes: z.int().min(0),
  /** The document JSON text; absent when it is larger than JOB_INLINE_DOCUMENT_BYTES. */
  json: z.string().optional(),
  /** Chunks to read with the document-chunk RPC when `json` is absent. */
  chunks: z.int().min(1).optional(),
});
export type JobDocumentItem = z.output<typeof JobDocumentItem>;

export const JobStatusReply = z.object({
  status: CrawlStatus,
  total: z.int().min(0),
  completed: z.int().min(0),
  creditsUsed: z.number().min(0),
  expiresAt: z.string(),
  items: z.array(JobDocumentItem),
  /** Documents stored so far (completion order 1..stored). */
  stored: z.int().min(0),
});
export type JobStatusReply = z.output<typeof JobStatusReply>;

export const JobDocumentChunkRequest = JobRef.extend({ seq: z.int().min(1), index: z.int().min(0) });
export const JobDocumentChunkReply = z.object({ data: z.string(), chunks: z.int().min(1) });

export const JobCancelReply = z.object({ status: z.literal('cancelled') });

export const JobActiveRequest = z.object({ teamId: z.string().min(1) });
export const JobActiveItem = z.object({
  id: z.uuid(),
  teamId: z.string(),
  url: z.string(),
  options: z.record(z.string(), z.unknown()),
});
export const JobActiveReply = z.object({ jobs: z.array(JobActiveItem) });

/** A team's pages of this service's jobs: in flight, waiting for a slot, and the last success. */
export const JobQueueReply = z.object({
  /** Pages being scraped now (holding team slots). */
  active: z.int().min(0),
  /** Pages of running jobs queued for a slot. */
  waiting: z.int().min(0),
  /** When a page of the team's jobs last succeeded (jobs of the last 24 hours), ISO or null. */
  lastSuccessAt: z.string().nullable(),
});
export type JobQueueReply = z.output<typeof JobQueueReply>;

export type JobRpcs<S extends string = string> = {
  status: RpcDef<typeof JobStatusRequest, typeof JobStatusReply, `wds.${S}.v1.${string}.status`>;
  documentChunk: RpcDef<typeof JobDocumentChunkRequest, typeof JobDocumentChunkReply>;
  cancel: RpcDef<typeof JobRef, typeof JobCancelReply>;
  errors: RpcDef<typeof JobRef, typeof JobErrorsResponse>;
  active: RpcDef<typeof JobActiveRequest, typeof JobActiveReply>;
  queue: RpcDef<typeof JobActiveRequest, typeof JobQueueReply>;
};

/**
 * `wds.<service>.v1.<noun>.{status,document-chunk,cancel,errors,active,queue}` served by the service's
 * queue group. Errors: NOT_FOUND (unknown or expired job), FORBIDDEN (another team's job),
 * CONFLICT (cancel of a finished job).
 */
export function defineJobRpcs<S extends ServiceKind>(service: S, noun: string): JobRpcs<S> {
  const subject = (verb: string) => `wds.${service}.v1.${noun}.${verb}`;
  return {
    status: defineRpc(
      subject('status') as `wds.${S}.v1.${string}.status`,
      service,
      JobStatusRequest,
      JobStatusReply,
    ),
    documentChunk: defineRpc(
      subject('document-chunk'),
      service,
      JobDocumentChunkRequest,
      JobDocumentChunkReply,
    ),
    cancel: defineRpc(subject('cancel'), service, JobRef, JobCancelReply),
    errors: defineRpc(subject('errors'), service, JobRef, JobErrorsResponse),
    active: defineRpc(subject('active'), service, JobActiveRequest, JobActiveReply),
    queue: defineRpc(subject('queue'), service, JobActiveRequest, JobQueueReply),
  };
}

/**
 * How long the tasks a dead process had taken wait before JetStream redelivers them. A live
 * consumer sends `working()` for each task it holds every third of this (from delivery until the
 * ack, however long the page takes), so this bounds only the recovery from a killed process: it
 * used to be 90 s, and every crawl whose tasks a killed crawler held paused that long.
 */
export const PAGE_TASK_ACK_WAIT_MS = 6_000;

/**
 * Durable pull consumer for a service's page tasks (ack wait: see PAGE_TASK_ACK_WAIT_MS). Twenty
 * deliveries with the page runner's short transient retries (≤ 2 s apart) ride out ~35 s of a
 * scraper or billing outage and resume within 2 s of its end.
 */
export function jobPageConsumer(durable: string, filterSubject: string): ConsumerDef {
  return {
    stream: STREAMS.WDS_WORK_V1.name,
    durable,
    filterSubject,
    ackWaitMs: PAGE_TASK_ACK_WAIT_MS,
    maxDeliver: 20,
  };
}

/** The job RPCs of any page-job service (crawler, batch). */
export type JobRpcSet = JobRpcs<ServiceKind>;

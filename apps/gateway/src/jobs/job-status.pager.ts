import {
  JOB_PAGE_REPLY_BYTES,
  JOB_STATUS_PAGE_BYTES,
  type JobRpcSet,
  type JobStatusReply,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { z } from 'zod';
import { validate } from '../http/validate';

export interface StatusPage {
  status: JobStatusReply['status'];
  total: number;
  completed: number;
  creditsUsed: number;
  expiresAt: string;
  /** Document JSON texts, in completion order. */
  documents: string[];
  /** Documents read so far (the `skip` of the next page). */
  nextSkip: number;
  /** Stored documents beyond `nextSkip` when the page was read. */
  more: boolean;
}

/**
 * Room kept in a 10 MB status page for what surrounds the documents: the counts, `expiresAt` and
 * `next` (its length follows WDS_PUBLIC_BASE_URL, a few hundred bytes in practice).
 */
export const STATUS_ENVELOPE_BYTES = 4 * 1024;

/**
 * Reads one status page of a page job (crawl or batch) from its service: documents in completion
 * order from `skip`, up to `byteBudget` of JSON counting the commas between them (at least one
 * document, however large), the large ones in chunks. The default budget keeps the whole status
 * answer within JOB_STATUS_PAGE_BYTES.
 */
export async function readStatusPage(
  messaging: Messaging,
  rpcs: JobRpcSet,
  q: { teamId: string; jobId: string; skip: number; limit?: number; byteBudget?: number },
): Promise<StatusPage> {
  const budget = q.byteBudget ?? JOB_STATUS_PAGE_BYTES - STATUS_ENVELOPE_BYTES;
  const documents: string[] = [];
  let used = 0;
  let skip = q.skip;
  let last: JobStatusReply | undefined;
  for (;;) {
    const left = q.limit === undefined ? undefined : q.limit - documents.length;
    if (left !== undefined && left <= 0) break;
    const reply: JobStatusReply = await messaging.request(rpcs.status, {
      teamId: q.teamId,
      jobId: q.jobId,
      skip,
      ...(left !== undefined ? { limit: left } : {}),
      maxBytes: Math.max(1, Math.min(JOB_PAGE_REPLY_BYTES, budget - used)),
    });
    last = reply;
    if (reply.items.length === 0) break;
    let full = false;
    for (const item of reply.items) {
      const bytes = documents.length > 0 ? item.bytes + 1 : item.bytes;
      if (documents.length > 0 && used + bytes > budget) {
        full = true;
        break;
      }
      const json =
        item.json ?? (await readChunks(messaging, rpcs, q.teamId, q.jobId, item.seq, item.chunks ?? 1));
      documents.push(json);
      used += bytes;
      skip = item.seq;
    }
    if (full || used >= budget || skip >= reply.stored) break;
  }
  if (!last) throw new Error('no status read');
  return {
    status: last.status,
    total: last.total,
    completed: last.completed,
    creditsUsed: last.creditsUsed,
    expiresAt: last.expiresAt,
    documents,
    nextSkip: skip,
    more: skip < last.stored,
  };
}

async function readChunks(
  messaging: Messaging,
  rpcs: JobRpcSet,
  teamId: string,
  jobId: string,
  seq: number,
  chunks: number,
): Promise<string> {
  const parts: Buffer[] = [];
  for (let index = 0; index < chunks; index++) {
    const reply = await messaging.request(rpcs.documentChunk, { teamId, jobId, seq, index });
    parts.push(Buffer.from(reply.data, 'base64'));
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The status answer as JSON text: the stored documents are spliced in without re-encoding. */
export function statusBody(page: StatusPage, next: string | null): string {
  const head = JSON.stringify({
    success: true,
    status: page.status,
    total: page.total,
    completed: page.completed,
    creditsUsed: page.creditsUsed,
    expiresAt: page.expiresAt,
    next,
  });
  return `${head.slice(0, -1)},"data":[${page.documents.join(',')}]}`;
}

/** `skip`/`limit` of a job status request (`GET /v2/crawl/{id}`, `GET /v2/batch/scrape/{id}`). */
export const JobStatusQuery = z.object({
  skip: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(100_000).optional(),
});

/** A status page of a running job that would be empty waits this long once for new documents. */
const EMPTY_PAGE_WAIT_MS = 500;

/**
 * The whole status answer of a page job: at most 10 MB (JOB_STATUS_PAGE_BYTES) of JSON unless its
 * single document is larger, with `next` (the job's status URL with the following `skip`) while
 * the job runs or more documents remain.
 */
export async function jobStatusResponse(
  messaging: Messaging,
  rpcs: JobRpcSet,
  q: { teamId: string; jobId: string; query: unknown; statusUrl: URL },
): Promise<string> {
  const { skip, limit } = validate(JobStatusQuery, q.query, 'query');
  const read = () =>
    readStatusPage(messaging, rpcs, { teamId: q.teamId, jobId: q.jobId, skip: skip ?? 0, limit });
  let page = await read();
  // A client following `next` of a running job would otherwise spin on empty pages.
  if (skip !== undefined && page.documents.length === 0 && page.status === 'scraping') {
    await new Promise((resolve) => setTimeout(resolve, EMPTY_PAGE_WAIT_MS));
    page = await read();
  }
  let next: string | null = null;
  if (page.status === 'scraping' || page.more) {
    const url = new URL(q.statusUrl);
    url.searchParams.set('skip', String(page.nextSkip));
    if (limit !== undefined) url.searchParams.set('limit', String(limit));
    next = url.href;
  }
  return statusBody(page, next);
}

import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import {
  Document,
  ErrorCode,
  SCRAPE_RPC,
  ServiceError,
  type ScrapeDocumentRef,
  type ScrapeGetReply,
  type ScrapeRunReply,
  type ScrapeRunRequest,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';

const gunzipAsync = promisify(gunzip);

/** Time past the scrape's own timeout for the scraper to store and answer. */
export const SCRAPE_REPLY_MARGIN_MS = 15_000;

/**
 * The scraper service as its callers see it (the gateway's scrape routes, crawl and batch pages):
 * run a scrape, read a stored one, and read a reply's document, which comes inline or, when large,
 * by reference in gzip chunks.
 */
export class ScrapeClient {
  constructor(private readonly messaging: Messaging) {}

  /** Runs one scrape; waits the scrape's timeout plus the margin the scraper needs to answer. */
  run(request: ScrapeRunRequest): Promise<ScrapeRunReply> {
    return this.messaging.request(SCRAPE_RPC.run, request, {
      timeoutMs: request.options.timeout + SCRAPE_REPLY_MARGIN_MS,
    });
  }

  /** A stored scrape of the team (GET /v2/scrape/{id}), its document still to be resolved. */
  get(teamId: string, jobId: string): Promise<ScrapeGetReply> {
    return this.messaging.request(SCRAPE_RPC.get, { teamId, jobId });
  }

  /** The reply's document: inline as is, or read by reference from the scraper in chunks. */
  async document(
    teamId: string,
    reply: { document?: Document; documentRef?: ScrapeDocumentRef },
  ): Promise<Document> {
    if (reply.document) return reply.document;
    const ref = reply.documentRef;
    if (!ref) throw new ServiceError(ErrorCode.INTERNAL, 'scrape reply carried no document');
    const parts: Buffer[] = [];
    // In order: the scraper erases a zero-data-retention document once its last chunk is read.
    for (let index = 0; index < ref.chunks; index++) {
      const chunk = await this.messaging.request(SCRAPE_RPC.documentChunk, {
        teamId,
        jobId: ref.jobId,
        index,
      });
      parts.push(Buffer.from(chunk.data, 'base64'));
    }
    const json = await gunzipAsync(Buffer.concat(parts));
    return Document.parse(JSON.parse(json.toString('utf8')));
  }
}

/**
 * Credits a failed scrape still costs (a lockdown cache miss costs 1): the scraper names them in the
 * error's details. 0 for any other failure.
 */
export function creditsOwedByFailure(err: unknown): number {
  if (!(err instanceof ServiceError)) return 0;
  const owed = (err.details as { creditsUsed?: unknown } | undefined)?.creditsUsed;
  return typeof owed === 'number' && owed > 0 ? owed : 0;
}

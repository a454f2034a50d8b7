import { gunzipSync } from 'node:zlib';
import {
  CRAWL_RPC,
  ErrorCode,
  MapRequest,
  ServiceError,
  type ExtractCreateReply,
  type ExtractCreateRequest,
} from '@wds/contracts';
import type { JobEvents, JobStore, PageDispatcher } from '@wds/jobs';
import type { Messaging } from '@wds/messaging';
import { pageCandidates } from '../batch/batch-options';
import { extractJobOptions } from './extract-options';
import { EXTRACT_KIND } from './job-kind.hooks';
import { expandUrls } from './url-globs';

/** URLs one glob's map reads at most (the job keeps `limit` of the matching ones). */
const GLOB_MAP_LIMIT = 5_000;
const MAP_TIMEOUT_MS = 60_000;

/**
 * Records an extract job and publishes its pages: URL globs are expanded through the crawler's map
 * first (at most `limit` pages in all). The job id comes from the gateway: a retried create finds
 * the job and adds nothing. The pages then run on the batch page pipeline (see JobKindHooks).
 */
export class CreateExtractUseCase {
  constructor(
    private readonly messaging: Messaging,
    private readonly store: JobStore,
    private readonly dispatcher: PageDispatcher,
    private readonly events: JobEvents,
    private readonly retentionMs: number,
  ) {}

  async execute(cmd: ExtractCreateRequest): Promise<ExtractCreateReply> {
    const known = await this.store.get(cmd.jobId);
    if (known) {
      if (known.teamId !== cmd.teamId || known.kind !== EXTRACT_KIND) {
        throw new ServiceError(ErrorCode.CONFLICT, 'The extract job id is taken');
      }
      return { id: known.id, pages: Math.max(1, known.discovered) };
    }
    const expansion = await expandUrls(cmd.urls, {
      limit: cmd.limit,
      includeSubdomains: cmd.includeSubdomains,
      map: (url) => this.map(cmd, url),
    });
    if (expansion.urls.length === 0) {
      throw new ServiceError(
        ErrorCode.BAD_REQUEST,
        `No page to read: ${expansion.empty.map((g) => JSON.stringify(g)).join(', ')} matched no page of the site`,
        { field: 'urls' },
      );
    }
    const urls = expansion.urls;
    await this.store.create({
      id: cmd.jobId,
      teamId: cmd.teamId,
      kind: EXTRACT_KIND,
      url: urls[0],
      options: extractJobOptions(cmd) as unknown as Record<string, unknown>,
      pageLimit: urls.length,
      concurrency: Math.max(1, Math.min(cmd.teamConcurrency, urls.length)),
      delayMs: 0,
      zeroDataRetention: false,
      retentionMs: this.retentionMs,
      teamConcurrency: cmd.teamConcurrency,
      webhook: cmd.webhook as Record<string, unknown> | undefined,
    });
    const job = await this.store.get(cmd.jobId);
    // `started` before the pages, whose end sends `completed` (a retried create sends it again
    // under the same webhookId: the events stream and the webhook outbox drop the repeat).
    if (job && !job.seeded) await this.events.lifecycle(job, 'started');
    const outcome = await this.store.addPages(cmd.jobId, pageCandidates(urls), { seeded: true });
    await this.dispatcher.publish(outcome.dispatch);
    return { id: cmd.jobId, pages: urls.length };
  }

  /**
   * The site's URLs from `url`, as POST /v2/map finds them (sitemap unless ignored, and links). A
   * glob whose site cannot be mapped (a base map refuses, a blocked or unknown host) matches nothing.
   */
  private async map(cmd: ExtractCreateRequest, url: string): Promise<string[]> {
    const request = MapRequest.safeParse({
      url,
      sitemap: cmd.ignoreSitemap ? 'skip' : 'include',
      includeSubdomains: cmd.includeSubdomains,
      limit: GLOB_MAP_LIMIT,
      timeout: MAP_TIMEOUT_MS,
    });
    if (!request.success) return [];
    try {
      const reply = await this.messaging.request(
        CRAWL_RPC.map,
        { teamId: cmd.teamId, request: request.data },
        { timeoutMs: MAP_TIMEOUT_MS + 15_000 },
      );
      const links = JSON.parse(gunzipSync(Buffer.from(reply.linksGz, 'base64')).toString('utf8')) as {
        url: string;
      }[];
      return links.map((l) => l.url);
    } catch (err) {
      // The crawler away is an outage (retry the request); anything else says the site has no map.
      if (err instanceof ServiceError && err.code === ErrorCode.SERVICE_UNAVAILABLE) throw err;
      return [];
    }
  }
}

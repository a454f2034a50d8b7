import { changeTrackingUrlsRpc, findFormat, RECHECK_DEPTH, type CrawlRequest } from '@wds/contracts';
import type { JobEvents, JobRow, JobStore, PageCandidate, PageDispatcher } from '@wds/jobs';
import type { Messaging } from '@wds/messaging';
import { getDomain } from 'tldts';
import { buildContext } from './crawl-context';

/** URLs of the history asked for per call. */
const PAGE_SIZE = 1000;
/** History URLs read per crawl at most (a team's history may be far larger than its site). */
const SCAN_MAX = 50_000;

/**
 * The change-tracking tag a crawl's history is kept under, or undefined when the crawl does not
 * re-check its history: only crawls with the changeTracking format whose pages keep snapshots
 * (not zero data retention, not lockdown).
 */
export function recheckTag(request: CrawlRequest): string | undefined {
  if (request.zeroDataRetention || request.scrapeOptions.lockdown) return undefined;
  const tracking = findFormat(request.scrapeOptions.formats, 'changeTracking');
  return tracking ? (tracking.tag ?? '') : undefined;
}

/**
 * The second seeding step of a crawl with changeTracking (Firecrawl's "hidden" pages): once every
 * page that links and sitemaps led to is done, the URLs of the team's change-tracking history (same
 * tag) that are in the crawl's scope and allowed by robots.txt but were not visited are added, at
 * depth RECHECK_DEPTH and within the crawl's limit; their scrapes answer `visibility: 'hidden'`
 * (`removed` when the page is gone). Then the crawl is seeded and completes with its last page.
 * Idempotent: a crawl already seeded, or with pages still queued or in flight, is left alone.
 */
export class ChangeRecheckUseCase {
  constructor(
    private readonly store: JobStore,
    private readonly messaging: Messaging,
    private readonly dispatcher: PageDispatcher,
    private readonly events: JobEvents,
  ) {}

  async execute(jobId: string): Promise<void> {
    const job = await this.store.get(jobId);
    if (!job || job.status !== 'scraping' || job.seeded) return;
    if (job.inflight > 0 || job.succeeded + job.failed < job.discovered) return;
    const candidates = await this.candidates(job);
    const outcome = await this.store.addPages(job.id, candidates, { seeded: true });
    await this.dispatcher.publish(outcome.dispatch);
    if (outcome.finished) await this.events.lifecycle(outcome.job ?? job, 'completed');
  }

  /** In-scope, robots-allowed URLs of the team's history; the store skips those already visited. */
  private async candidates(job: JobRow): Promise<PageCandidate[]> {
    const { request, scope, robots } = buildContext(job);
    const tag = recheckTag(request);
    const room = job.pageLimit - job.discovered;
    if (tag === undefined || room <= 0) return [];
    // At most `discovered` of them are pages this crawl already has: more are never needed.
    const wanted = room + job.discovered;
    const start = new URL(request.url);
    const domain = request.allowExternalLinks
      ? undefined
      : (getDomain(start.hostname, { allowPrivateDomains: true }) ?? start.hostname);
    const out: PageCandidate[] = [];
    const seen = new Set<string>();
    let after: string | undefined;
    for (let scanned = 0; scanned < SCAN_MAX && out.length < wanted;) {
      const page = await this.messaging.request(changeTrackingUrlsRpc, {
        teamId: job.teamId,
        tag,
        ...(domain ? { domain } : {}),
        ...(after ? { after } : {}),
        limit: PAGE_SIZE,
      });
      scanned += page.urls.length;
      for (const url of page.urls) {
        // Depth 0: maxDiscoveryDepth limits link discovery, not the history.
        const v = scope.check(url, 0);
        if (!v.ok || seen.has(v.key) || !robots.isAllowed(v.url)) continue;
        seen.add(v.key);
        out.push({ urlKey: v.key, url: v.url, depth: RECHECK_DEPTH });
        if (out.length >= wanted) break;
      }
      if (!page.next) break;
      after = page.next;
    }
    return out;
  }
}

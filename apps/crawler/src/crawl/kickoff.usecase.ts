import type { CrawlKickoff } from '@wds/contracts';
import type { JobEvents, JobStore, PageCandidate, PageDispatcher } from '@wds/jobs';
import { recheckTag, type ChangeRecheckUseCase } from './change-recheck';
import { buildContext, robotsFetchAgentOf } from './crawl-context';
import { parseRobots, robotsPart, ALLOW_ALL } from './robots';
import { discoverSitemapUrls } from './sitemaps';
import { CRAWLER_USER_AGENT, type SiteFetcher } from './site-fetcher';

/** Sitemaps may list far more URLs than the limit: read a margin for those out of scope. */
const SITEMAP_READ_FACTOR = 4;
const SITEMAP_READ_MAX = 200_000;

/**
 * Seeds a crawl: reads robots.txt (unless ignored), the sitemaps (unless `skip`), and adds the
 * start URL and the in-scope sitemap URLs at depth 0. Idempotent: a repeat adds nothing new.
 *
 * A crawl with changeTracking is seeded in two steps: these pages first (the crawl stays unseeded
 * while they and the pages they link to run), then, once none is left, the change-tracking re-check
 * (ChangeRecheckUseCase). A kickoff of such a crawl whose first step is recorded (it has pages) goes
 * to the re-check: that is how the drained hook and the watchdog's reseed reach it.
 */
export class KickoffCrawlUseCase {
  constructor(
    private readonly store: JobStore,
    private readonly fetcher: SiteFetcher,
    private readonly dispatcher: PageDispatcher,
    private readonly events: JobEvents,
    private readonly recheck: ChangeRecheckUseCase,
  ) {}

  async execute(msg: CrawlKickoff): Promise<void> {
    const job = await this.store.get(msg.crawlId);
    if (!job || job.status !== 'scraping' || job.seeded) return;
    const { request, scope, robotsAgent } = buildContext({ options: job.options, robotsTxt: undefined });
    const rechecks = recheckTag(request) !== undefined;
    if (rechecks && job.discovered > 0) return this.recheck.execute(job.id);
    const start = new URL(request.url);

    let robotsTxt: string | null = null;
    let robots = ALLOW_ALL;
    if (!request.ignoreRobotsTxt) {
      const robotsUrl = new URL('/robots.txt', start.origin).href;
      const res = await this.fetcher.getText(robotsUrl, { userAgent: robotsFetchAgentOf(request) });
      robotsTxt = res && res.status >= 200 && res.status < 300 ? robotsPart(res.text) : '';
      robots = parseRobots(robotsUrl, robotsTxt, robotsAgent);
    }

    const candidates: PageCandidate[] = [];
    const blocked: string[] = [];
    const seen = new Set<string>();
    const add = (raw: string) => {
      const v = scope.check(raw, 0);
      if (!v.ok || seen.has(v.key)) return;
      seen.add(v.key);
      if (!robots.isAllowed(v.url)) blocked.push(v.url);
      else candidates.push({ urlKey: v.key, url: v.url, depth: 0 });
    };
    add(scope.startPage().url);
    if (request.sitemap !== 'skip') {
      const max = Math.min(request.limit * SITEMAP_READ_FACTOR + 100, SITEMAP_READ_MAX);
      // robotsUserAgent is for robots.txt only; sitemaps are the crawler's own reads.
      const sitemapUrls = await discoverSitemapUrls(
        this.fetcher,
        start,
        robots.sitemaps(),
        max,
        CRAWLER_USER_AGENT,
      );
      for (const url of sitemapUrls) add(url);
    }
    const outcome = await this.store.addPages(job.id, candidates, { seeded: !rechecks, blocked, robotsTxt });
    await this.dispatcher.publish(outcome.dispatch);
    if (outcome.finished) await this.events.lifecycle(job, 'completed');
    // Nothing to scrape first (all blocked, or out of scope): the re-check follows at once.
    if (rechecks && outcome.inserted === 0) await this.recheck.execute(job.id);
  }
}

import { CrawlRequest, normalizeFormats } from '@wds/contracts';
import type { JobRow } from '@wds/jobs';
import { ALLOW_ALL, parseRobots, type RobotsRules } from './robots';
import { CrawlScope } from './scope';
import { CRAWLER_USER_AGENT, ROBOTS_PRODUCT_TOKEN } from './site-fetcher';

/** What every page of one crawl needs, derived once from the stored request. */
export interface CrawlContext {
  request: CrawlRequest;
  scope: CrawlScope;
  robots: RobotsRules;
  /** Whose robots.txt group the crawl obeys. */
  robotsAgent: string;
  /** The caller asked for `links`; otherwise they are fetched for discovery only and dropped. */
  wantsLinks: boolean;
}

const MAX_CACHED = 500;

/**
 * The agent robots.txt rules are evaluated for: `robotsUserAgent`, else the product token
 * (robots-parser reduces a full string such as `OtherBot/2.0` to its product token itself).
 */
export function robotsAgentOf(request: CrawlRequest): string {
  return request.robotsUserAgent ?? ROBOTS_PRODUCT_TOKEN;
}

/**
 * The User-Agent robots.txt is fetched with: `robotsUserAgent` ("used to fetch and evaluate
 * robots.txt"), else the full published crawler string, so a site's logs name the crawler as
 * its docs do, not the bare token.
 */
export function robotsFetchAgentOf(request: CrawlRequest): string {
  return request.robotsUserAgent ?? CRAWLER_USER_AGENT;
}

export function buildContext(job: Pick<JobRow, 'options' | 'robotsTxt'>): CrawlContext {
  const request = CrawlRequest.parse(job.options);
  const start = new URL(request.url);
  const robotsAgent = robotsAgentOf(request);
  return {
    request,
    scope: new CrawlScope(start, request),
    robots:
      request.ignoreRobotsTxt || job.robotsTxt === undefined
        ? ALLOW_ALL
        : parseRobots(new URL('/robots.txt', start.origin).href, job.robotsTxt, robotsAgent),
    robotsAgent,
    wantsLinks: normalizeFormats(request.scrapeOptions.formats).some((f) => f.type === 'links'),
  };
}

/**
 * Contexts by crawl id (the stored request never changes; robots.txt is fixed once the kickoff
 * recorded the first pages, with them, even when a change-tracking re-check still seeds more).
 */
export class CrawlContexts {
  private readonly cache = new Map<string, CrawlContext>();

  get(job: JobRow): CrawlContext {
    const hit = this.cache.get(job.id);
    if (hit) return hit;
    const ctx = buildContext(job);
    if (job.seeded || job.discovered > 0) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(job.id, ctx);
    }
    return ctx;
  }
}

import { CrawlRequest, normalizeFormats } from '@wds/contracts';
import type { JobRow } from '@wds/jobs';
import { ALLOW_ALL, parseRobots, type RobotsRules } from './robots';
import { CrawlScope } from './scope';
import { ROBOTS_PRODUCT_TOKEN } from './site-fetcher';

/** What every page of one crawl needs, derived once from the stored request. */
export interface CrawlContext {
  request: CrawlRequest;
  scope: CrawlScope;
  robots: RobotsRules;
  robotsAgent: string;
  /** The caller asked for `links`; otherwise they are fetched for discovery only and dropped. */
  wantsLinks: boolean;
}

const MAX_CACHED = 500;

export function robotsAgentOf(request: CrawlRequest): string {
  return request.robotsUserAgent ?? ROBOTS_PRODUCT_TOKEN;
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

/** Contexts by crawl id (the stored request never changes; robots.txt is fixed once seeded). */
export class CrawlContexts {
  private readonly cache = new Map<string, CrawlContext>();

  get(job: JobRow): CrawlContext {
    const hit = this.cache.get(job.id);
    if (hit) return hit;
    const ctx = buildContext(job);
    if (job.seeded) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(job.id, ctx);
    }
    return ctx;
  }
}

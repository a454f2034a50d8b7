import { RECHECK_DEPTH, type Document, type PageTask, type ScrapeRequestInput } from '@wds/contracts';
import type { JobRow, PageCandidate, PageJobHooks, PageScrapeContext } from '@wds/jobs';
import type { CrawlContexts } from './crawl-context';

/** Links checked between two turns of the event loop (~7 ms of work). */
const LINKS_PER_TURN = 1000;

/** The crawl's part of the page pipeline: scrape options per page and link discovery by scope. */
export class CrawlPageHooks implements PageJobHooks {
  constructor(
    private readonly contexts: CrawlContexts,
    /** Queues the change-tracking re-check of a crawl whose discovered pages are all done. */
    private readonly queueRecheck: (job: JobRow) => Promise<void>,
  ) {}

  scrapeContext(_job: JobRow, task: PageTask): PageScrapeContext {
    return task.depth === RECHECK_DEPTH ? { hiddenInCrawl: true } : {};
  }

  drained(job: JobRow): Promise<void> {
    return this.queueRecheck(job);
  }

  scrapeRequest(job: JobRow, task: PageTask): ScrapeRequestInput {
    const ctx = this.contexts.get(job);
    const options = ctx.request.scrapeOptions;
    return {
      ...options,
      url: task.url,
      formats: ctx.wantsLinks ? options.formats : [...options.formats, 'links'],
    } as ScrapeRequestInput;
  }

  async afterScrape(
    job: JobRow,
    task: PageTask,
    document: Document,
  ): Promise<{ document: Document; discovered: PageCandidate[]; blocked: string[] }> {
    const ctx = this.contexts.get(job);
    const links = document.links ?? [];
    let stored = document;
    if (!ctx.wantsLinks) {
      const { links: _dropped, ...rest } = document;
      stored = rest;
    }
    const discovered: PageCandidate[] = [];
    const blocked: string[] = [];
    // sitemap "only": the sitemap URLs and the start URL, no HTML links. A re-checked page of the
    // change-tracking history was not reached by the crawl: it leads nowhere either.
    if (ctx.request.sitemap === 'only' || task.depth === RECHECK_DEPTH) {
      return { document: stored, discovered, blocked };
    }
    const seen = new Set<string>();
    const depth = task.depth + 1;
    const base = document.metadata?.url ?? task.url;
    for (let i = 0; i < links.length; i++) {
      // ~7 µs a link (scope rules, robots.txt): a page of 50,000 links would hold the event loop
      // every crawl of the replica shares for a third of a second in one piece.
      if (i > 0 && i % LINKS_PER_TURN === 0) await new Promise((r) => setImmediate(r));
      const link = links[i];
      const v = ctx.scope.check(link, depth, base);
      if (!v.ok || seen.has(v.key)) continue;
      seen.add(v.key);
      if (!ctx.robots.isAllowed(v.url)) {
        blocked.push(v.url);
        continue;
      }
      discovered.push({ urlKey: v.key, url: v.url, depth });
    }
    return { document: stored, discovered, blocked };
  }
}

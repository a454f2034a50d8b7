import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  CREDIT_PRICES,
  ErrorCode,
  SCRAPE_TIMEOUT_MIN_MS,
  ServiceError,
  unsupportedScrapeFeature,
  type ScrapeRequest,
  type SearchRequest,
  type SearchResponse,
  type SearchSourceType,
} from '@wds/contracts';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { RecordCallActivity } from '../credits/call-activity';
import { CreditsService, derivedUsage, type UsageIdentity } from '../credits/credits.service';
import { ScrapePageUseCase, SerializedAnswer } from '../scrape/scrape-page.usecase';
import { assertTeamMay } from '../teams/assert-team-may';
import type { AuthenticatedTeam } from '../teams/team';
import {
  buildSourceQuery,
  categoriesOf,
  categoryOf,
  parseResultUrl,
  passesDomains,
  sourcesOf,
  type SourceQuery,
} from './search-query';
import { SearxngClient, type EngineResult } from './searxng.client';

/** Time kept back from the request's timeout to answer with what was found. */
const ANSWER_MARGIN_MS = 500;
/** Engine pages read for one source: enough for the limit, never a crawl of the engine. */
const MAX_PAGES = 10;
/** Scrape failures named in the warning (the rest are counted). */
const NAMED_FAILURES = 3;

type ResultItem = Record<string, unknown> & { url: string; position?: number };

export interface SearchWebCommand {
  team: AuthenticatedTeam;
  request: SearchRequest;
  usage: UsageIdentity;
}

/** Credits of a search that returned `results` results (before scraping them). */
export function searchCredits(results: number): number {
  return Math.ceil(results / 10) * CREDIT_PRICES.searchPerTenResults;
}

/**
 * POST /v2/search: asks the operator's SearXNG for each source (web, news, images), filters and
 * labels the results, scrapes them when `scrapeOptions` asks (each page a scrape of its own: billed,
 * cached, readable at GET /v2/scrape/{id}), and answers before the request's timeout with what it has.
 */
@Injectable()
export class SearchWebUseCase {
  private readonly engine: SearxngClient | undefined;

  constructor(
    private readonly scrapePage: ScrapePageUseCase,
    private readonly credits: CreditsService,
    private readonly activity: RecordCallActivity,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.engine = config.WDS_SEARXNG_URL ? new SearxngClient(config.WDS_SEARXNG_URL) : undefined;
  }

  /** Whether the operator configured a SearXNG (WDS_SEARXNG_URL). */
  get configured(): boolean {
    return this.engine !== undefined;
  }

  async execute({ team, request, usage }: SearchWebCommand): Promise<SearchResponse> {
    const engine = this.engine;
    if (!engine) {
      throw new ServiceError(
        ErrorCode.NOT_IMPLEMENTED,
        'Web search is not configured: this deployment has no search engine (the operator sets WDS_SEARXNG_URL to a SearXNG instance). POST /v2/map lists the URLs of a site, and scrape, batch scrape, extract and agent read pages you name by URL',
      );
    }
    const zeroDataRetention = request.enterprise?.includes('zdr') ?? false;
    const template = request.scrapeOptions ? { ...request.scrapeOptions, zeroDataRetention } : undefined;
    if (template) {
      const unsupported = unsupportedScrapeFeature(template as ScrapeRequest, { browser: true, llm: true });
      if (unsupported) {
        throw new ServiceError(ErrorCode.BAD_REQUEST, unsupported.message, {
          field: `scrapeOptions.${unsupported.field}`,
        });
      }
    }
    assertTeamMay(team, template ?? { zeroDataRetention });
    const sources = sourcesOf(request);
    const held = await this.credits.hold({
      usage,
      teamId: team.teamId,
      endpoint: 'search',
      estimate: searchCredits(request.limit * sources.length),
      apiKey: team.keyPrefix,
    });
    const id = randomUUID();
    const createdAt = Date.now();
    const deadline = createdAt + request.timeout - ANSWER_MARGIN_MS;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), Math.max(0, deadline - Date.now()));
    let found: SourceResults[];
    try {
      found = await Promise.all(sources.map((s) => this.searchSource(engine, request, s, abort.signal)));
    } catch (err) {
      this.credits.release(held);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    const returned = found.reduce((n, f) => n + f.items.length, 0);
    const credits = searchCredits(returned);
    this.credits.settle(held, credits);
    const warnings = found.flatMap((f) => f.warnings);
    let scrapeCredits = 0;
    if (template) {
      const scraped = await this.scrapeResults(team, usage, template, found, deadline);
      scrapeCredits = scraped.credits;
      warnings.push(...scraped.warnings);
    }
    if (returned === 0) {
      const unresponsive = [...new Set(found.flatMap((f) => f.unresponsive))];
      warnings.unshift(
        unresponsive.length > 0
          ? `No search results found; engines that did not answer: ${unresponsive.join(', ')}`
          : 'No search results found',
      );
    } else {
      const unresponsive = [...new Set(found.flatMap((f) => f.unresponsive))];
      if (unresponsive.length > 0) warnings.push(`Engines that did not answer: ${unresponsive.join(', ')}`);
    }
    await this.activity.execute({
      team,
      endpoint: 'search',
      id,
      target: zeroDataRetention ? null : request.query,
      createdAt,
    });
    const data: Partial<Record<SearchSourceType, ResultItem[]>> = {};
    for (const f of found) data[f.source] = f.items;
    return {
      success: true,
      // Each item was built for its source's shape (toItem).
      data: data as SearchResponse['data'],
      warning: warnings.length > 0 ? [...new Set(warnings)].join('; ') : null,
      id,
      creditsUsed: credits + scrapeCredits,
    };
  }

  private async searchSource(
    engine: SearxngClient,
    request: SearchRequest,
    source: ReturnType<typeof sourcesOf>[number],
    signal: AbortSignal,
  ): Promise<SourceResults> {
    const { query, warnings } = buildSourceQuery(request, source);
    const categories = categoriesOf(request);
    const items: ResultItem[] = [];
    const dates = new Map<ResultItem, number>();
    const seen = new Set<string>();
    const unresponsive = new Set<string>();
    const pages = Math.min(MAX_PAGES, Math.ceil(request.limit / 10) + 2);
    for (let pageno = 1; pageno <= pages && items.length < request.limit; pageno++) {
      let answer;
      try {
        answer = await engine.page(query, pageno, signal);
      } catch (err) {
        if (!signal.aborted) {
          if (pageno === 1) throw err;
          warnings.push(
            `the engine failed on page ${pageno} of the ${source.type} results: fewer results than asked`,
          );
          break;
        }
        if (pageno === 1) {
          throw new ServiceError(
            ErrorCode.UPSTREAM_TIMEOUT,
            `The search engine did not answer the ${source.type} search within the timeout (${request.timeout} ms)`,
          );
        }
        warnings.push(
          `the timeout came while more ${source.type} results were read: fewer results than asked`,
        );
        break;
      }
      for (const u of answer.unresponsive) unresponsive.add(u);
      let added = 0;
      for (const r of answer.results) {
        if (items.length >= request.limit) break;
        const item = toItem(query, r, request, categories);
        if (!item || seen.has(item.url)) continue;
        seen.add(item.url);
        items.push(item);
        const date = Date.parse(r.publishedDate ?? '');
        if (Number.isFinite(date)) dates.set(item, date);
        added++;
      }
      // A page that adds nothing new is the end of what the engine has.
      if (added === 0) break;
    }
    if (query.newestFirst) {
      const at = (i: ResultItem) => dates.get(i) ?? -Infinity;
      items.sort((a, b) => at(b) - at(a));
    }
    items.forEach((item, i) => (item.position = i + 1));
    return { source: source.type, items, warnings, unresponsive: [...unresponsive] };
  }

  /** Scrapes the web and news results, a few at a time, until the deadline. */
  private async scrapeResults(
    team: AuthenticatedTeam,
    usage: UsageIdentity,
    template: Omit<ScrapeRequest, 'url'>,
    found: SourceResults[],
    deadline: number,
  ): Promise<{ credits: number; warnings: string[] }> {
    const work = found
      .filter((f) => f.source !== 'images')
      .flatMap((f) => f.items.map((item) => ({ source: f.source, item })))
      .filter(({ item }) => parseResultUrl(item.url) !== undefined);
    const failures: string[] = [];
    let skipped = 0;
    let credits = 0;
    let next = 0;
    const worker = async () => {
      while (next < work.length) {
        const { source, item } = work[next++];
        const remaining = deadline - Date.now();
        if (remaining < SCRAPE_TIMEOUT_MIN_MS) {
          skipped++;
          continue;
        }
        const options = {
          ...template,
          url: item.url,
          timeout: Math.min(template.timeout, remaining),
        } as ScrapeRequest;
        try {
          const answer = await this.scrapePage.execute({
            team,
            options,
            usage: derivedUsage(usage, 'search', [source, String(item.position ?? 0)]),
          });
          const body = answer instanceof SerializedAnswer ? JSON.parse(answer.json) : answer;
          const document = body.data as Record<string, unknown> & { metadata?: { creditsUsed?: number } };
          credits += document.metadata?.creditsUsed ?? 0;
          Object.assign(item, document, { url: item.url });
        } catch (err) {
          const code = err instanceof ServiceError ? err.code : 'INTERNAL';
          if (!(err instanceof ServiceError))
            this.logger.warn({ err }, 'a search result could not be scraped');
          failures.push(`${item.url} (${code})`);
        }
      }
    };
    const parallel = Math.max(
      1,
      Math.min(this.config.WDS_SEARCH_SCRAPE_CONCURRENCY, team.limits.maxConcurrency),
    );
    await Promise.all(Array.from({ length: Math.min(parallel, work.length) }, worker));
    const warnings: string[] = [];
    if (failures.length > 0) {
      const named = failures.slice(0, NAMED_FAILURES).join(', ');
      const more = failures.length > NAMED_FAILURES ? ` and ${failures.length - NAMED_FAILURES} more` : '';
      warnings.push(`${failures.length} result(s) could not be scraped: ${named}${more}`);
    }
    if (skipped > 0) warnings.push(`${skipped} result(s) were not scraped: the timeout came first`);
    return { credits, warnings };
  }
}

interface SourceResults {
  source: SearchSourceType;
  items: ResultItem[];
  warnings: string[];
  unresponsive: string[];
}

function text(v: string | null | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

/** One engine result as an item of its source, or undefined when the filters leave it out. */
function toItem(
  query: SourceQuery,
  r: EngineResult,
  request: SearchRequest,
  categories: ReturnType<typeof categoriesOf>,
): ResultItem | undefined {
  const raw = text(r.url);
  if (!raw) return undefined;
  const url = parseResultUrl(raw);
  const filtered = (request.includeDomains?.length ?? 0) + (request.excludeDomains?.length ?? 0) > 0;
  if (!url && (request.ignoreInvalidURLs || filtered || categories.length > 0)) return undefined;
  if (url && !passesDomains(url, request)) return undefined;
  const href = url ? url.href : raw;
  switch (query.source) {
    case 'web': {
      const category = url && categories.length > 0 ? categoryOf(url, categories) : undefined;
      if (categories.length > 0 && !category) return undefined;
      return { url: href, title: text(r.title), description: text(r.content), category };
    }
    case 'news':
      return {
        url: href,
        title: text(r.title),
        snippet: text(r.content),
        date: text(r.publishedDate),
        imageUrl: text(r.thumbnail) ?? text(r.img_src) ?? text(r.thumbnail_src),
      };
    case 'images': {
      const imageUrl = text(r.img_src) ?? text(r.thumbnail_src) ?? text(r.thumbnail);
      if (!imageUrl) return undefined;
      const size = /(\d{1,6})\s*[x×]\s*(\d{1,6})/.exec(r.resolution ?? '');
      return {
        url: href,
        title: text(r.title),
        imageUrl,
        imageWidth: size ? Number(size[1]) : undefined,
        imageHeight: size ? Number(size[2]) : undefined,
      };
    }
  }
}

import { findFormat } from '../api/scrape/formats';
import type { ScrapeRequest } from '../api/scrape/scrape-request';

/**
 * The credit price list (api-v2 "Credits and cost rules"): every service that charges or holds
 * credits reads its prices here, so a price changes in one place.
 */
export const CREDIT_PRICES = {
  /** A scraped page (HTML, text, an image...). */
  page: 1,
  /** Each page of a parsed PDF (at least one). */
  pdfPage: 1,
  /** A PDF returned as base64 instead of parsed: flat. */
  pdfBase64: 1,
  /** Added to the base cost when the page was fetched through an enhanced proxy (total 5 for a page). */
  enhancedProxySurcharge: 4,
  /** A lockdown (cache-only) scrape answered from the cache. */
  lockdownHit: 5,
  /** A lockdown scrape with nothing cached: billed although it answers an error. */
  lockdownMiss: 1,
  /** Each media format (`audio`, `video`) produced. */
  mediaFormat: 4,
  /** Each LLM format (json, summary, question, highlights, the cleaning pass) the model answered. */
  llmFormat: 4,
  /** changeTracking `json` mode when the model was called. */
  changeTrackingJson: 4,
  /** POST /v2/map. */
  map: 1,
  /** POST /v2/search: per started ten results returned (a scraped result is billed as a scrape besides). */
  searchPerTenResults: 2,
  /** Browser sessions, per minute prorated by the second, with a one-minute minimum. */
  browserSessionPerMinute: 2,
  /** A browser session in which an interact prompt (the AI agent) ran, per minute instead. */
  browserSessionPromptPerMinute: 7,
  /** Extract and agent jobs: one credit per this many LLM tokens (api-v2: "1 credit equals 15 tokens"). */
  tokensPerCredit: 15,
} as const;

export type ContentKind = { kind: 'page' } | { kind: 'pdf'; pages: number } | { kind: 'pdf-base64' };

/** Which proxy tier served a fetch; undefined when no proxy pool is configured (direct). */
export type ProxyTier = 'basic' | 'enhanced';

/** Cost of producing a document from fetched content. */
export function contentCost(content: ContentKind): number {
  switch (content.kind) {
    case 'page':
      return CREDIT_PRICES.page;
    case 'pdf':
      return Math.max(1, content.pages) * CREDIT_PRICES.pdfPage;
    case 'pdf-base64':
      return CREDIT_PRICES.pdfBase64;
  }
}

/** Cost of a fresh scrape: the content cost, plus the surcharge when an enhanced proxy served it. */
export function freshScrapeCost(content: ContentKind, proxyUsed: ProxyTier | undefined): number {
  return contentCost(content) + (proxyUsed === 'enhanced' ? CREDIT_PRICES.enhancedProxySurcharge : 0);
}

/**
 * The proxy-tier rule of the price: only a `basic` scrape outside lockdown is sure to cost the page
 * price; `auto` may be retried through an enhanced proxy, `enhanced` always is, and a lockdown hit
 * costs as much. (PDFs and LLM formats are settled at their actual cost.)
 */
export function mayCostEnhanced(o: Pick<ScrapeRequest, 'proxy' | 'lockdown'>): boolean {
  return !(o.proxy === 'basic' && !o.lockdown);
}

/**
 * Credits held before a scrape runs (the gateway's POST /v2/scrape and each crawl or batch page): the
 * most an ordinary page can cost through the proxies it may use, plus the media and LLM formats
 * asked for. The actual cost is settled afterwards, more or less than this.
 */
export function scrapeEstimate(
  o: Pick<ScrapeRequest, 'proxy' | 'lockdown' | 'formats'> & Partial<Pick<ScrapeRequest, 'onlyCleanContent'>>,
): number {
  const base = mayCostEnhanced(o)
    ? CREDIT_PRICES.page + CREDIT_PRICES.enhancedProxySurcharge
    : CREDIT_PRICES.page;
  return base + mediaFormatsCost(o) + llmFormatsCost(o);
}

/**
 * Credits the requested LLM work adds when the model answers: +4 for each of json, summary,
 * question, highlights and the onlyCleanContent pass, +4 for changeTracking's json mode.
 */
export function llmFormatsCost(
  o: Pick<ScrapeRequest, 'formats'> & Partial<Pick<ScrapeRequest, 'onlyCleanContent'>>,
): number {
  const formats = (['json', 'summary', 'question', 'highlights'] as const).filter(
    (f) => findFormat(o.formats, f) !== undefined,
  ).length;
  const tracking = findFormat(o.formats, 'changeTracking');
  return (
    (formats + (o.onlyCleanContent ? 1 : 0)) * CREDIT_PRICES.llmFormat +
    (tracking?.modes?.includes('json') ? CREDIT_PRICES.changeTrackingJson : 0)
  );
}

/** Credits the requested media formats add when produced (+4 each for `audio` and `video`). */
export function mediaFormatsCost(o: Pick<ScrapeRequest, 'formats'>): number {
  return (
    (findFormat(o.formats, 'audio') ? CREDIT_PRICES.mediaFormat : 0) +
    (findFormat(o.formats, 'video') ? CREDIT_PRICES.mediaFormat : 0)
  );
}

/**
 * Credits of a browser session that lasted `durationMs`: 2 per minute by the second (7 once an
 * interact prompt ran in it), at least one minute.
 */
export function browserSessionCredits(durationMs: number, promptUsed = false): number {
  const minutes = Math.max(1, Math.max(0, durationMs) / 60_000);
  const rate = promptUsed
    ? CREDIT_PRICES.browserSessionPromptPerMinute
    : CREDIT_PRICES.browserSessionPerMinute;
  return Math.ceil(minutes * rate);
}

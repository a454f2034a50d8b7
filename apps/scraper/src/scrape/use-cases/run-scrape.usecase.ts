import {
  cacheHitMetadata,
  CREDIT_PRICES,
  freshScrapeCost,
  normalizeFormats,
  SCRAPE_INLINE_MAX_BYTES,
  ServiceError,
  unsupportedScrapeFeature,
  type Document,
  type ScrapeRunRequest,
  type ArtifactSigning,
} from '@wds/contracts';
import type { Logger } from '@wds/observability';
import { cachePolicyOf, mayStore, type CachePolicy, type CacheRead } from '../cache/cache-policy';
import type { BuiltDocument, DocumentBuilder } from '../document/build-document';
import type { OutputFormat } from '../document/html-transformer';
import { buildMetadata } from '../document/metadata';
import type { EngineSelector, PageOutcome } from '../engine/engine-selection';
import type { FetchedPage } from '../engine/fetch-engine';
import type { PageFormats } from '../formats/page-formats';
import { browserResults } from './browser-results';
import type { CacheEntry, CacheStore } from '../cache/cache-store';
import { decodeDocument, encodeDocument } from '../storage/document-codec';
import type { ScrapeActivity, ScrapeStore } from '../storage/scrape-store';
import { DocumentDelivery, retainFor, type DeliveredResult } from './document-delivery';
import { entryRef, joinWarnings, withDeadline, withRequestedFormats } from './run-scrape.helpers';

export interface RunScrapeSettings {
  retentionMs: number;
  cacheRetentionMs: number;
  /** Base URL of the gateway, for screenshot and PDF artifact URLs. */
  publicBaseUrl: string;
  /** Artifact URLs as capability URLs (signed, expiring); unset: plain URLs needing the API key. */
  artifactSigning?: ArtifactSigning;
}

/**
 * Cached documents up to this size are answered inline with their per-request metadata patched in
 * (the patch adds well under a kilobyte); larger ones take the general path (stored and chunked).
 */
const PATCHED_INLINE_MAX_BYTES = SCRAPE_INLINE_MAX_BYTES - 16 * 1024;

const OUTPUT_FORMATS: readonly OutputFormat[] = ['markdown', 'html', 'rawHtml', 'links', 'images'];

/** One scrape as it runs: its request and what was settled about it before any work. */
interface ScrapeRun {
  cmd: ScrapeRunRequest;
  /** Effective zero data retention (the job's, the option, or lockdown). */
  zdr: boolean;
  policy: CachePolicy;
  started: number;
  deadline: number;
  /** The job's fields of every log line (no URL under zero data retention). */
  job: { jobId: string; teamId: string; url?: string };
  activity?: ScrapeActivity;
}

type Fetched = {
  page: FetchedPage;
  built: BuiltDocument;
  outcome: PageOutcome;
  /** Tokens spent on the page's own fields (the branding colour-role pass). */
  pageTokens: number;
};

/** Runs a page scrape request within its deadline; `now` is injectable for tests. */
export class RunScrapeUseCase {
  constructor(
    private readonly engines: EngineSelector,
    private readonly builder: DocumentBuilder,
    private readonly scrapes: ScrapeStore,
    private readonly cache: CacheStore,
    private readonly delivery: DocumentDelivery,
    private readonly settings: RunScrapeSettings,
    private readonly logger: Logger,
    private readonly formats: PageFormats,
    private readonly now: () => number = Date.now,
  ) {}

  async execute(cmd: ScrapeRunRequest): Promise<DeliveredResult> {
    const run = this.begin(cmd);
    const { read } = run.policy;
    if (read.mode === 'cache-only') return this.fromCacheOnly(run, read);
    if (read.mode === 'read-through') {
      const entry = await this.cache.find({ key: run.policy.key, maxAgeMs: read.maxAgeMs });
      if (entry) return this.fromCache(run, entry, entry.contentCredits);
    }
    return this.fresh(run, await this.fetch(run));
  }

  /** Refuses what this scraper cannot do, then settles the run: zero data retention, cache policy, deadline. */
  private begin(cmd: ScrapeRunRequest): ScrapeRun {
    const started = this.now();
    const o = cmd.options;
    const unsupported = unsupportedScrapeFeature(o, {
      browser: this.engines.hasBrowser,
      llm: this.formats.llmEnabled,
    });
    if (unsupported) throw new ServiceError('BAD_REQUEST', unsupported.message, { field: unsupported.field });
    this.formats.validate(o);
    // Lockdown is treated as zero data retention: nothing about the request is kept.
    const zdr = cmd.zeroDataRetention === true || o.zeroDataRetention || o.lockdown;
    return {
      cmd,
      zdr,
      policy: cachePolicyOf(o, zdr),
      started,
      deadline: started + o.timeout,
      // The job's fields go on each line rather than into a child logger: one line per page is the
      // usual case, and a child costs a second redaction pass (~15% of the line's cost).
      job: { jobId: cmd.jobId, teamId: cmd.teamId, ...(zdr ? {} : { url: o.url }) },
      activity: cmd.activity ? { apiKey: cmd.activity.apiKey, createdAt: started } : undefined,
    };
  }

  /** `lockdown` / `minAge`: the cached copy or a (lockdown: billed) miss; the page is never fetched. */
  private async fromCacheOnly(
    run: ScrapeRun,
    read: Extract<CacheRead, { mode: 'cache-only' }>,
  ): Promise<DeliveredResult> {
    const entry = await this.cache.find({
      key: run.policy.key,
      maxAgeMs: read.maxAgeMs,
      minAgeMs: read.minAgeMs,
    });
    if (entry)
      return this.fromCache(run, entry, read.lockdown ? CREDIT_PRICES.lockdownHit : entry.contentCredits);
    const lockdown = read.lockdown;
    const credits = lockdown ? CREDIT_PRICES.lockdownMiss : 0;
    await this.recordFailure(run, lockdown ? 'SCRAPE_LOCKDOWN_CACHE_MISS' : 'SCRAPE_NO_CACHED_DATA', credits);
    this.logger.info({ ...run.job, lockdown }, 'scrape cache miss on a cache-only request');
    throw lockdown
      ? new ServiceError(
          'SCRAPE_LOCKDOWN_CACHE_MISS',
          'The page is not in the cache (lockdown mode never fetches it)',
          {
            creditsUsed: credits,
          },
        )
      : new ServiceError('SCRAPE_NO_CACHED_DATA', 'No cached data matches minAge for this URL', {
          creditsUsed: 0,
        });
  }

  /** Fetches and builds the page; a failure is recorded as the job's outcome and rethrown. */
  private async fetch(run: ScrapeRun): Promise<Fetched> {
    try {
      return await this.fetchAndBuild(run.cmd, run.zdr, run.deadline);
    } catch (err) {
      const code = err instanceof ServiceError ? err.code : 'INTERNAL';
      this.logger.info({ ...run.job, code, ms: this.now() - run.started }, 'scrape failed');
      await this.recordFailure(run, code, 0);
      throw err;
    }
  }

  /**
   * A fetched page: its per-request formats and price, the answer document; the job recorded and,
   * when the policy and the page allow, the cache entry written (sharing one gzip when they can).
   */
  private async fresh(
    run: ScrapeRun,
    { page, built, outcome, pageTokens }: Fetched,
  ): Promise<DeliveredResult> {
    const { cmd, zdr } = run;
    const o = cmd.options;
    const perRequest = this.formats.isPerRequest(o);
    const fetchedAt = new Date(this.now());
    const extras = perRequest
      ? await this.formats.perRequest({
          cmd,
          zeroDataRetention: zdr,
          document: built.document,
          statusCode: page.status,
          fetchedAt,
          page,
          deadline: run.deadline,
        })
      : undefined;
    const credits = freshScrapeCost(built.content, page.proxyUsed) + (extras?.credits ?? 0);
    const tokensUsed = pageTokens + tokensOf(extras);
    const cached = mayStore(run.policy, page.status, !!outcome.rendered?.screenshot)
      ? await this.storeInCache(run, built, fetchedAt)
      : undefined;
    const patch = {
      scrapeId: cmd.jobId,
      cacheState: 'miss',
      creditsUsed: credits,
      ...(page.proxyUsed ? { proxyUsed: page.proxyUsed } : {}),
    };
    const warning = joinWarnings(outcome.warning, ...(extras?.warnings ?? []));
    const document: Document = withRequestedFormats(o, {
      ...built.document,
      ...(outcome.rendered
        ? browserResults(outcome.rendered, this.settings.publicBaseUrl, this.settings.artifactSigning)
        : {}),
      ...extras?.fields,
      ...(warning ? { warning } : {}),
      metadata: buildMetadata(built.document.metadata ?? {}, patch),
    });
    this.logger.info(
      {
        ...run.job,
        statusCode: page.status,
        credits,
        proxyUsed: page.proxyUsed,
        engine: outcome.engine,
        ms: this.now() - run.started,
      },
      'page scraped',
    );
    const job = {
      teamId: cmd.teamId,
      jobId: cmd.jobId,
      url: o.url,
      document,
      creditsUsed: credits,
      tokensUsed,
      cacheHit: false,
      proxyUsed: page.proxyUsed,
      statusCode: page.status,
      activity: run.activity,
      keepUntil: cmd.keepUntil,
    };
    if (
      cached &&
      !outcome.rendered &&
      !outcome.warning &&
      !perRequest &&
      cached.jsonBytes <= PATCHED_INLINE_MAX_BYTES
    ) {
      // The job row shares the cache entry's gzip (compressed once) and keeps its own metadata beside it.
      const [, delivered] = await Promise.all([
        cached.written,
        this.delivery.deliverShared({ ...job, gz: cached.gz, metadataPatch: patch }),
      ]);
      const expiresAt = new Date(cached.fetchedAt.getTime() + this.settings.cacheRetentionMs);
      return {
        ...delivered,
        cached: entryRef(run.policy.key, { ...cached, expiresAt, contentCredits: built.contentCredits }),
      };
    }
    await cached?.written;
    return this.delivery.deliver({ ...job, zeroDataRetention: zdr });
  }

  /** Starts writing the page's cache entry; `written` settles once it is committed. */
  private async storeInCache(
    run: ScrapeRun,
    built: BuiltDocument,
    fetchedAt: Date,
  ): Promise<{ gz: Buffer; jsonBytes: number; fetchedAt: Date; written: Promise<void> }> {
    const { gz, jsonBytes } = await encodeDocument(built.document);
    const written = this.cache.put({
      key: run.policy.key,
      url: run.cmd.options.url,
      documentGz: gz,
      contentCredits: built.contentCredits,
      retainMs: this.settings.cacheRetentionMs,
      fetchedAt,
    });
    return { gz, jsonBytes, fetchedAt, written };
  }

  private async fetchAndBuild(cmd: ScrapeRunRequest, zdr: boolean, deadline: number): Promise<Fetched> {
    const o = cmd.options;
    const outcome = await this.engines.obtain(
      o,
      { teamId: cmd.teamId, jobId: cmd.jobId, zeroDataRetention: zdr },
      deadline,
    );
    const page = outcome.page;
    const formats = this.formats.transformFormats(
      o,
      new Set(
        normalizeFormats(o.formats)
          .map((f) => f.type)
          .filter((t): t is OutputFormat => (OUTPUT_FORMATS as readonly string[]).includes(t)),
      ),
    );
    const built = await withDeadline(
      this.builder.build(page, {
        sourceUrl: o.url,
        formats,
        onlyMainContent: o.onlyMainContent,
        includeTags: o.includeTags,
        excludeTags: o.excludeTags,
        removeBase64Images: o.removeBase64Images,
        parsePdf: o.parsers.length > 0,
        teamId: cmd.teamId,
      }),
      deadline - this.now(),
    );
    // attributes and branding belong to the page: they are part of its cached copy.
    const pageFields = await this.formats.pageFields({
      cmd,
      zeroDataRetention: zdr,
      page,
      rendered: outcome.rendered,
      deadline,
    });
    if (Object.keys(pageFields.fields).length > 0)
      built.document = { ...built.document, ...pageFields.fields };
    const warning = joinWarnings(built.document.warning, ...pageFields.warnings);
    if (warning) built.document = { ...built.document, warning };
    return { page, built, outcome, pageTokens: tokensOf(pageFields) };
  }

  private async fromCache(
    run: ScrapeRun,
    entry: CacheEntry,
    contentCredits: number,
  ): Promise<DeliveredResult> {
    const { cmd, zdr, activity } = run;
    const key = run.policy.key;
    const deadline = run.deadline;
    const cached = entry.document ?? (await decodeDocument(entry.documentGz));
    const perRequest = this.formats.isPerRequest(cmd.options);
    const extras = perRequest
      ? await this.formats.perRequest({
          cmd,
          zeroDataRetention: zdr,
          document: cached,
          statusCode: cached.metadata?.statusCode ?? 200,
          fetchedAt: entry.fetchedAt,
          deadline,
        })
      : undefined;
    const credits = contentCredits + (extras?.credits ?? 0);
    const tokensUsed = tokensOf(extras);
    const patch = cacheHitMetadata(cmd.jobId, entry.fetchedAt.getTime(), credits);
    const warning = joinWarnings(cached.warning, ...(extras?.warnings ?? []));
    const document: Document = withRequestedFormats(cmd.options, {
      ...cached,
      ...extras?.fields,
      ...(warning ? { warning } : {}),
      metadata: buildMetadata(cached.metadata ?? {}, patch),
    });
    if (!zdr && !perRequest && entry.jsonBytes !== undefined && entry.jsonBytes <= PATCHED_INLINE_MAX_BYTES) {
      // The usual hit: the job row keeps the cached gzip as it is plus this request's metadata.
      const delivered = await this.delivery.deliverShared({
        teamId: cmd.teamId,
        jobId: cmd.jobId,
        url: cmd.options.url,
        document,
        gz: entry.documentGz,
        metadataPatch: patch,
        creditsUsed: credits,
        tokensUsed,
        cacheHit: true,
        statusCode: document.metadata?.statusCode,
        activity,
        keepUntil: cmd.keepUntil,
      });
      return { ...delivered, cached: entryRef(key, entry) };
    }
    return this.delivery.deliver({
      teamId: cmd.teamId,
      jobId: cmd.jobId,
      url: cmd.options.url,
      document,
      creditsUsed: credits,
      tokensUsed,
      cacheHit: true,
      statusCode: document.metadata?.statusCode,
      zeroDataRetention: zdr,
      activity,
      keepUntil: cmd.keepUntil,
    });
  }

  private async recordFailure(run: ScrapeRun, errorCode: string, credits: number) {
    const { cmd, zdr, activity } = run;
    await this.scrapes.insert({
      id: cmd.jobId,
      teamId: cmd.teamId,
      url: zdr ? undefined : cmd.options.url,
      status: 'failed',
      errorCode,
      creditsUsed: credits,
      cacheHit: false,
      zeroDataRetention: zdr,
      retainMs: retainFor(this.settings.retentionMs, cmd.keepUntil),
      activity,
    });
  }
}

/** Tokens the page's LLM formats spent (what the provider reported, else the port's estimate). */
function tokensOf(extras: { tokens: readonly { usage: { totalTokens: number } }[] } | undefined): number {
  return (extras?.tokens ?? []).reduce((sum, t) => sum + Math.max(0, Math.round(t.usage.totalTokens)), 0);
}

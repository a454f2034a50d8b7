import {
  cacheHitMetadata,
  CREDIT_PRICES,
  freshScrapeCost,
  findFormat,
  normalizeFormats,
  readsScrapeCache,
  SCRAPE_INLINE_MAX_BYTES,
  ServiceError,
  unsupportedScrapeFeature,
  type Document,
  type ScrapeCacheEntryRef,
  type ScrapeRunRequest,
  type ArtifactSigning,
} from '@wds/contracts';
import type { Logger } from '@wds/observability';
import { scrapeCacheKey } from '../cache/cache-key';
import type { BuiltDocument, DocumentBuilder } from '../document/build-document';
import type { OutputFormat } from '../document/html-transformer';
import { buildMetadata } from '../document/metadata';
import type { EngineSelector, PageOutcome } from '../engine/engine-selection';
import type { FetchedPage } from '../engine/fetch-engine';
import type { PageFormats } from '../formats/page-formats';
import { browserResults } from './browser-results';
import type { CacheEntry, CacheStore } from '../storage/cache-store';
import { decodeDocument, encodeDocument } from '../storage/document-codec';
import type { ScrapeActivity, ScrapeStore } from '../storage/scrape-store';
import { DocumentDelivery, type DeliveredResult } from './document-delivery';

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
    // The job's fields go on each line rather than into a child logger: one line per page is the
    // usual case, and a child costs a second redaction pass (~15% of the line's cost).
    const job = { jobId: cmd.jobId, teamId: cmd.teamId, ...(zdr ? {} : { url: o.url }) };
    const key = scrapeCacheKey(o);
    const activity = cmd.activity ? { apiKey: cmd.activity.apiKey, createdAt: started } : undefined;

    if (o.lockdown || o.minAge !== undefined) {
      const entry = await this.cache.find({
        key,
        maxAgeMs: o.lockdown ? o.maxAge : undefined,
        minAgeMs: o.minAge,
      });
      if (!entry) {
        const lockdown = o.lockdown;
        const credits = lockdown ? CREDIT_PRICES.lockdownMiss : 0;
        await this.recordFailure(
          cmd,
          zdr,
          lockdown ? 'SCRAPE_LOCKDOWN_CACHE_MISS' : 'SCRAPE_NO_CACHED_DATA',
          credits,
          activity,
        );
        this.logger.info({ ...job, lockdown }, 'scrape cache miss on a cache-only request');
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
      const credits = o.lockdown ? CREDIT_PRICES.lockdownHit : entry.contentCredits;
      return this.fromCache(cmd, zdr, entry, credits, key, started + o.timeout, activity);
    }

    // Zero data retention never touches the index; caller headers may change the page, so no shared copy.
    const useCache = !zdr && Object.keys(o.headers ?? {}).length === 0;
    if (readsScrapeCache(o, zdr)) {
      const entry = await this.cache.find({ key, maxAgeMs: o.maxAge });
      if (entry) {
        return this.fromCache(cmd, zdr, entry, entry.contentCredits, key, started + o.timeout, activity);
      }
    }

    const deadline = started + o.timeout;
    let fetched: { page: FetchedPage; built: BuiltDocument; outcome: PageOutcome };
    try {
      fetched = await this.fetchAndBuild(cmd, zdr, deadline);
    } catch (err) {
      const code = err instanceof ServiceError ? err.code : 'INTERNAL';
      this.logger.info({ ...job, code, ms: this.now() - started }, 'scrape failed');
      await this.recordFailure(cmd, zdr, code, 0, activity);
      throw err;
    }
    const { page, built, outcome } = fetched;
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
          deadline,
        })
      : undefined;
    const credits = freshScrapeCost(built.content, page.proxyUsed) + (extras?.credits ?? 0);
    // Screenshot and media URLs expire with their artifacts: such documents are never reused from the cache.
    const cacheable =
      !outcome.rendered?.screenshot && !findFormat(o.formats, 'audio') && !findFormat(o.formats, 'video');
    let cached: { gz: Buffer; jsonBytes: number; fetchedAt: Date } | undefined;
    let caching: Promise<void> | undefined;
    if (useCache && o.storeInCache && cacheable && page.status >= 200 && page.status < 300) {
      cached = { ...(await encodeDocument(built.document)), fetchedAt };
      caching = this.cache.put({
        key,
        url: o.url,
        documentGz: cached.gz,
        contentCredits: built.contentCredits,
        retainMs: this.settings.cacheRetentionMs,
        fetchedAt: cached.fetchedAt,
      });
    }
    const patch = {
      scrapeId: cmd.jobId,
      cacheState: 'miss',
      creditsUsed: credits,
      ...(page.proxyUsed ? { proxyUsed: page.proxyUsed } : {}),
    };
    const warning = joinWarnings(outcome.warning, ...(extras?.warnings ?? []));
    const document: Document = withRequestedFormats(o, {
      ...built.document,
      ...(outcome.rendered ? browserResults(outcome.rendered, this.settings.publicBaseUrl, this.settings.artifactSigning) : {}),
      ...extras?.fields,
      ...(warning ? { warning } : {}),
      metadata: buildMetadata(built.document.metadata ?? {}, patch),
    });
    this.logger.info(
      {
        ...job,
        statusCode: page.status,
        credits,
        proxyUsed: page.proxyUsed,
        engine: outcome.engine,
        ms: this.now() - started,
      },
      'page scraped',
    );
    if (
      cached &&
      !outcome.rendered &&
      !outcome.warning &&
      !perRequest &&
      cached.jsonBytes <= PATCHED_INLINE_MAX_BYTES
    ) {
      // The job row shares the cache entry's gzip (compressed once) and keeps its own metadata beside it.
      const [, delivered] = await Promise.all([
        caching,
        this.delivery.deliverShared({
          teamId: cmd.teamId,
          jobId: cmd.jobId,
          url: o.url,
          document,
          gz: cached.gz,
          metadataPatch: patch,
          creditsUsed: credits,
          cacheHit: false,
          proxyUsed: page.proxyUsed,
          statusCode: page.status,
          activity,
        }),
      ]);
      const expiresAt = new Date(cached.fetchedAt.getTime() + this.settings.cacheRetentionMs);
      return {
        ...delivered,
        cached: entryRef(key, { ...cached, expiresAt, contentCredits: built.contentCredits }),
      };
    }
    await caching;
    return this.delivery.deliver({
      teamId: cmd.teamId,
      jobId: cmd.jobId,
      url: o.url,
      document,
      creditsUsed: credits,
      cacheHit: false,
      proxyUsed: page.proxyUsed,
      statusCode: page.status,
      zeroDataRetention: zdr,
      activity,
    });
  }

  private async fetchAndBuild(
    cmd: ScrapeRunRequest,
    zdr: boolean,
    deadline: number,
  ): Promise<{ page: FetchedPage; built: BuiltDocument; outcome: PageOutcome }> {
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
      }),
      deadline - this.now(),
    );
    // attributes and branding belong to the page: they are part of its cached copy.
    const pageFields = this.formats.pageFields(o, page, outcome.rendered);
    if (Object.keys(pageFields).length > 0) built.document = { ...built.document, ...pageFields };
    return { page, built, outcome };
  }

  private async fromCache(
    cmd: ScrapeRunRequest,
    zdr: boolean,
    entry: CacheEntry,
    contentCredits: number,
    key: string,
    deadline: number,
    activity: ScrapeActivity | undefined,
  ): Promise<DeliveredResult> {
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
        cacheHit: true,
        statusCode: document.metadata?.statusCode,
        activity,
      });
      return { ...delivered, cached: entryRef(key, entry) };
    }
    return this.delivery.deliver({
      teamId: cmd.teamId,
      jobId: cmd.jobId,
      url: cmd.options.url,
      document,
      creditsUsed: credits,
      cacheHit: true,
      statusCode: document.metadata?.statusCode,
      zeroDataRetention: zdr,
      activity,
    });
  }

  private async recordFailure(
    cmd: ScrapeRunRequest,
    zdr: boolean,
    errorCode: string,
    credits: number,
    activity: ScrapeActivity | undefined,
  ) {
    await this.scrapes.insert({
      id: cmd.jobId,
      teamId: cmd.teamId,
      url: zdr ? undefined : cmd.options.url,
      status: 'failed',
      errorCode,
      creditsUsed: credits,
      cacheHit: false,
      zeroDataRetention: zdr,
      retainMs: this.settings.retentionMs,
      activity,
    });
  }
}

/** Names the cache entry a delivered document is (see `ScrapeRunReply.cached`). */
function entryRef(
  key: string,
  e: { fetchedAt: Date; expiresAt: Date; contentCredits: number },
): ScrapeCacheEntryRef {
  return {
    key,
    fetchedAt: e.fetchedAt.getTime(),
    expiresAt: e.expiresAt.getTime(),
    contentCredits: e.contentCredits,
  };
}

/** Rejects with SCRAPE_TIMEOUT when `work` does not finish within `ms` (work that ignores it is abandoned). */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ServiceError('SCRAPE_TIMEOUT', 'Scrape timed out while processing the page')),
      Math.max(0, ms),
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Warnings of the page and of its formats, as the one `warning` string of the document. */
function joinWarnings(...warnings: (string | undefined)[]): string | undefined {
  const all = warnings.filter((w): w is string => !!w);
  return all.length > 0 ? all.join(' ') : undefined;
}

/** Drops markdown produced only for change tracking or the LLM formats (the caller did not ask for it). */
function withRequestedFormats(o: ScrapeRunRequest['options'], document: Document): Document {
  if (document.markdown === undefined || findFormat(o.formats, 'markdown')) return document;
  const { markdown: _unrequested, ...rest } = document;
  return rest;
}

import type { ArtifactSigning } from '@wds/contracts';
import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Database } from '@wds/database';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { NetworkPolicy, OutboundHttp, ProxyPool } from '@wds/outbound';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import { DocumentBuilder } from './document/build-document';
import { HtmlTransformer } from './document/html-transformer';
import { PageWorkers } from './document/page-workers';
import { PooledHtmlTransformer } from './document/pooled.html-transformer';
import { BrowserEngine, NatsBrowserEngine } from './engine/browser-engine';
import { EngineSelector } from './engine/engine-selection';
import { FetchEngine } from './engine/fetch-engine';
import { PdfParseExtractor, PdfTextExtractor } from './pdf/pdf-extractor';
import type { ScrapeEnv } from './scrape.config';
import { ScrapePurge } from './scrape-purge';
import { ScrapeController } from './scrape.controller';
import { MemoryFrontedCacheStore } from './cache/memory-cache-store';
import { CacheStore, PgCacheStore } from './cache/cache-store';
import { PgScrapeStore, ScrapeStore } from './storage/scrape-store';
import { ScraperWrites } from './storage/scraper-writes';
import { activityRecorder } from '@wds/credits';
import { DocumentDelivery } from './use-cases/document-delivery';
import { GetScrapeUseCase } from './use-cases/get-scrape.usecase';
import { ReadDocumentChunkUseCase } from './use-cases/read-document-chunk.usecase';
import { StoreHitsUseCase } from './use-cases/store-hits.usecase';
import { PendingHits, StreamPendingHits } from './storage/pending-hits';
import { RunScrapeUseCase } from './use-cases/run-scrape.usecase';
import { PageFormats } from './formats/page-formats';
import { BrandingRoles } from './formats/llm/branding-roles';
import { LlmFormats } from './formats/llm/llm-formats';
import { llmConfigFrom, OpenAiCompatibleLlm, type LlmPort } from '@wds/llm';
import { reportTokens } from '@wds/credits';
import { PgSnapshotStore, SnapshotStore } from './formats/change-tracking/snapshot-store';
import { JsonChanges } from './formats/change-tracking/json-changes';
import { TrackChangesUseCase } from './formats/change-tracking/track-changes.usecase';
import { Ffmpeg } from './formats/media/ffmpeg';
import { ObjectStoreMediaArtifacts } from './formats/media/media-artifacts';
import { MediaFormats } from './formats/media/media-formats';

/** Injection token of the process's LlmPort. */
export const LLM_PORT = Symbol('LLM_PORT');

const HOUR = 3600 * 1000;
/** A too-large zero-data-retention document waits this long at most for the gateway to read it. */
const TRANSIENT_DOCUMENT_MS = 5 * 60 * 1000;
/**
 * Heap of a page worker thread: a 22 MB page (over WDS_SCRAPE_MAX_BYTES) transformed to every format
 * fits in 192 MB (~0.8 s); a page that needs more fails alone instead of taking the replica's memory.
 */
const PAGE_WORKER_HEAP_MB = 512;

/** Closes the pooled outbound connections when the app stops. */
@Injectable()
class OutboundLifecycle implements OnApplicationShutdown {
  constructor(private readonly http: OutboundHttp) {}
  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
  }
}

@Module({
  controllers: [ScrapeController],
  providers: [
    {
      provide: OutboundHttp,
      inject: [APP_CONFIG],
      useFactory: (c: ScrapeEnv) =>
        new OutboundHttp({ policy: new NetworkPolicy({ allowlist: c.WDS_PRIVATE_NETWORK_ALLOWLIST }) }),
    },
    OutboundLifecycle,
    {
      provide: FetchEngine,
      inject: [APP_CONFIG, OutboundHttp],
      useFactory: (c: ScrapeEnv, http: OutboundHttp) =>
        new FetchEngine({
          http,
          basicProxies: new ProxyPool(c.WDS_PROXY_BASIC),
          enhancedProxies: new ProxyPool(c.WDS_PROXY_ENHANCED),
          maxBytes: c.WDS_SCRAPE_MAX_BYTES,
        }),
    },
    {
      provide: BrowserEngine,
      inject: [APP_CONFIG, Messaging],
      useFactory: (c: ScrapeEnv, messaging: Messaging) =>
        new NatsBrowserEngine(messaging, { attempts: c.WDS_BROWSER_RENDER_ATTEMPTS, retryDelayMs: 50 }),
    },
    {
      provide: EngineSelector,
      inject: [APP_CONFIG, FetchEngine, BrowserEngine],
      useFactory: (c: ScrapeEnv, fetch: FetchEngine, browser: BrowserEngine) =>
        new EngineSelector(fetch, c.WDS_BROWSER_ENABLED ? browser : undefined, {
          waterfallDelayMs: c.WDS_ENGINE_WATERFALL_MS,
        }),
    },
    // Worker threads for large pages (null with WDS_SCRAPE_TRANSFORM_THREADS=0: all on the event loop).
    {
      provide: PageWorkers,
      inject: [APP_CONFIG],
      useFactory: (c: ScrapeEnv) =>
        c.WDS_SCRAPE_TRANSFORM_THREADS > 0
          ? new PageWorkers({
              threads: c.WDS_SCRAPE_TRANSFORM_THREADS,
              inlineMaxChars: c.WDS_SCRAPE_TRANSFORM_INLINE_KB * 1024,
              maxHeapMb: PAGE_WORKER_HEAP_MB,
            })
          : null,
    },
    {
      provide: HtmlTransformer,
      inject: [PageWorkers],
      useFactory: (workers: PageWorkers | null) => new PooledHtmlTransformer(workers ?? undefined),
    },
    { provide: PdfTextExtractor, useFactory: () => new PdfParseExtractor() },
    {
      provide: DocumentBuilder,
      inject: [HtmlTransformer, PdfTextExtractor],
      useFactory: (html: HtmlTransformer, pdf: PdfTextExtractor) => new DocumentBuilder(html, pdf),
    },
    // One write queue for job rows and cache entries: a fetched page's two rows share a statement.
    {
      provide: ScraperWrites,
      inject: [Database, Messaging],
      useFactory: (db: Database, messaging: Messaging) => new ScraperWrites(db, activityRecorder(messaging)),
    },
    {
      provide: ScrapeStore,
      inject: [Database, ScraperWrites],
      useFactory: (db: Database, writes: ScraperWrites) => new PgScrapeStore(db, writes),
    },
    {
      provide: CacheStore,
      inject: [Database, ScraperWrites],
      useFactory: (db: Database, writes: ScraperWrites) =>
        new MemoryFrontedCacheStore(new PgCacheStore(db, writes)),
    },
    {
      provide: DocumentDelivery,
      inject: [APP_CONFIG, ScrapeStore],
      useFactory: (c: ScrapeEnv, store: ScrapeStore) =>
        new DocumentDelivery(store, {
          retentionMs: c.WDS_SCRAPE_RETENTION_HOURS * HOUR,
          transientMs: TRANSIENT_DOCUMENT_MS,
        }),
    },
    // One LLM port per process: it owns the per-replica concurrency cap.
    {
      provide: LLM_PORT,
      inject: [APP_CONFIG],
      useFactory: (c: ScrapeEnv) => new OpenAiCompatibleLlm(llmConfigFrom(c)),
    },
    { provide: SnapshotStore, inject: [Database], useFactory: (db: Database) => new PgSnapshotStore(db) },
    {
      provide: PageFormats,
      inject: [APP_CONFIG, SnapshotStore, OutboundHttp, Messaging, LLM_PORT, LOGGER, PageWorkers],
      useFactory: (
        c: ScrapeEnv,
        snapshots: SnapshotStore,
        http: OutboundHttp,
        messaging: Messaging,
        llm: LlmPort,
        logger: Logger,
        workers: PageWorkers | null,
      ) =>
        new PageFormats(
          new TrackChangesUseCase(snapshots, llm.enabled ? new JsonChanges(llm) : undefined),
          new MediaFormats(
            http,
            new Ffmpeg(),
            new ObjectStoreMediaArtifacts(messaging, c.WDS_ARTIFACT_TTL_HOURS * HOUR),
            {
              maxBytes: c.WDS_MEDIA_MAX_BYTES,
              processMs: c.WDS_MEDIA_PROCESS_MS,
              publicBaseUrl: c.WDS_PUBLIC_BASE_URL,
              artifactSigning: artifactSigningOf(c),
            },
          ),
          new LlmFormats(llm, logger.child({ component: 'llm-formats' }), (event) =>
            reportTokens(messaging, event),
          ),
          c.WDS_BRANDING_LLM && llm.enabled ? new BrandingRoles(llm) : undefined,
          workers ?? undefined,
        ),
    },
    {
      provide: RunScrapeUseCase,
      inject: [
        APP_CONFIG,
        EngineSelector,
        DocumentBuilder,
        ScrapeStore,
        CacheStore,
        DocumentDelivery,
        LOGGER,
        PageFormats,
      ],
      useFactory: (
        c: ScrapeEnv,
        engine: EngineSelector,
        builder: DocumentBuilder,
        store: ScrapeStore,
        cache: CacheStore,
        delivery: DocumentDelivery,
        logger: Logger,
        formats: PageFormats,
      ) =>
        new RunScrapeUseCase(
          engine,
          builder,
          store,
          cache,
          delivery,
          {
            retentionMs: c.WDS_SCRAPE_RETENTION_HOURS * HOUR,
            cacheRetentionMs: c.WDS_SCRAPE_CACHE_RETENTION_DAYS * 24 * HOUR,
            publicBaseUrl: c.WDS_PUBLIC_BASE_URL,
            artifactSigning: artifactSigningOf(c),
          },
          logger.child({ component: 'scrape' }),
          formats,
        ),
    },
    {
      provide: GetScrapeUseCase,
      inject: [ScrapeStore, PendingHits, StoreHitsUseCase],
      useFactory: (s: ScrapeStore, pending: PendingHits, store: StoreHitsUseCase) =>
        new GetScrapeUseCase(s, { pending, store }),
    },
    {
      provide: ReadDocumentChunkUseCase,
      inject: [ScrapeStore],
      useFactory: (s: ScrapeStore) => new ReadDocumentChunkUseCase(s),
    },
    {
      provide: StoreHitsUseCase,
      inject: [DocumentDelivery],
      useFactory: (delivery: DocumentDelivery) => new StoreHitsUseCase(delivery),
    },
    { provide: PendingHits, inject: [Messaging], useFactory: (m: Messaging) => new StreamPendingHits(m) },
    ScrapePurge,
  ],
})
export class ScrapeModule {}

/** Capability URLs for artifacts when the operator configured their key. */
function artifactSigningOf(c: ScrapeEnv): ArtifactSigning | undefined {
  return c.WDS_ARTIFACT_URL_SECRET === undefined
    ? undefined
    : { secret: c.WDS_ARTIFACT_URL_SECRET, ttlMs: c.WDS_ARTIFACT_URL_TTL_SECONDS * 1000 };
}

import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { buildOpenApiDocument } from '@wds/contracts';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { Logger } from 'pino';
import type { DocsSearchConfig } from './config';
import { collectSources, findDocsRoot } from './corpus/collect-sources';
import { openApiPassages } from './corpus/openapi-passages';
import type { Passage } from './corpus/passage';
import { splitMarkdown } from './corpus/split-markdown';
import { embedMissing, syncPassages } from './index/build-index';
import { PassageStore } from './index/passage-store';
import { Retriever } from './search/retriever';

/** Every passage of the published reference under `root`, plus the served OpenAPI document. */
export function publishedPassages(root: string): Passage[] {
  const sources = collectSources(root);
  if (!sources.length) throw new Error(`no documentation found under ${root} (README.md files, docs/**.md)`);
  return [
    ...sources.flatMap((s) => splitMarkdown(s.source, s.text)),
    ...openApiPassages(buildOpenApiDocument()),
  ];
}

/**
 * Start-up: brings the text index in line with the shipped docs (only what changed, well under a
 * second); the ask RPC (`DocsSearchController`) is bound by the transport after this hook, before
 * the service listens and registers for discovery, so `GET /health` counts docs-search once it can
 * answer. Missing vectors (new or changed passages) are computed afterwards in the background, by
 * the embedding model's own thread (the event loop stays free for questions and probes); until they
 * are, answers rank by full text alone (or with the vectors of an earlier start), and the hybrid
 * ranking switches on when they are done.
 */
@Injectable()
export class DocsSearchService implements OnApplicationBootstrap, OnApplicationShutdown {
  private stopping = false;
  private embedding: Promise<void> | undefined;

  constructor(
    private readonly store: PassageStore,
    private readonly retriever: Retriever,
    @Inject(APP_CONFIG) private readonly config: DocsSearchConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Resolves when the background embedding has finished (tests, benchmarks). */
  vectorsReady(): Promise<void> {
    return this.embedding ?? Promise.resolve();
  }

  async onApplicationBootstrap(): Promise<void> {
    const root = this.config.WDS_DOCS_ROOT ?? findDocsRoot(__dirname);
    if (!root) throw new Error('cannot find the documentation to index: set WDS_DOCS_ROOT');
    const stats = await syncPassages(this.store, publishedPassages(root));
    await this.retriever.refresh();
    this.logger.info({ root, ...stats }, 'documentation index up to date');
    const embedder = this.retriever.embedder;
    if (embedder) {
      this.embedding = (async () => {
        const t0 = Date.now();
        const embedded = await embedMissing(this.store, embedder, { shouldStop: () => this.stopping });
        if (this.stopping) return;
        await this.retriever.refresh();
        this.logger.info(
          { embedded, ms: Date.now() - t0, hybrid: this.retriever.hybrid },
          'documentation vectors up to date',
        );
      })().catch((err: unknown) => {
        this.logger.error({ err }, 'computing documentation vectors failed; ranking by full text only');
      });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.embedding;
    await this.retriever.embedder?.close();
  }
}

import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { buildOpenApiDocument, DOCS_SEARCH_RPC } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { Logger } from 'pino';
import { AskDocs } from './answer/ask-docs.usecase';
import type { DocsSearchConfig } from './config';
import { collectSources, findDocsRoot } from './corpus/collect-sources';
import { openApiPassages } from './corpus/openapi-passages';
import type { Passage } from './corpus/passage';
import { splitMarkdown } from './corpus/split-markdown';
import { buildIndex } from './index/build-index';
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
 * Start-up: brings the index in line with the shipped docs (only what changed), then serves the
 * ask RPC. Nest runs this before the service listens and registers for discovery, so `GET /health`
 * counts docs-search only once it can answer.
 */
@Injectable()
export class DocsSearchService implements OnApplicationBootstrap {
  constructor(
    private readonly store: PassageStore,
    private readonly retriever: Retriever,
    private readonly ask: AskDocs,
    private readonly messaging: Messaging,
    @Inject(APP_CONFIG) private readonly config: DocsSearchConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const root = this.config.WDS_DOCS_ROOT ?? findDocsRoot(__dirname);
    if (!root) throw new Error('cannot find the documentation to index: set WDS_DOCS_ROOT');
    const stats = await buildIndex(this.store, publishedPassages(root), this.retriever.embedder);
    await this.retriever.refresh();
    this.logger.info({ root, ...stats, hybrid: this.retriever.hybrid }, 'documentation index up to date');
    this.messaging.serve(DOCS_SEARCH_RPC.ask, (req) => this.ask.execute(req));
  }
}

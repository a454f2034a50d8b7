import { Module } from '@nestjs/common';
import { Database } from '@wds/database';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { Logger } from 'pino';
import { ActivityRecorder } from '@wds/credits';
import { Messaging } from '@wds/messaging';
import { AskDocs, DOCS_TOKEN_SINK } from './answer/ask-docs.usecase';
import { llmConfigFrom, OpenAiCompatibleLlm } from '@wds/llm';
import { DOCS_ANSWER_MODEL } from './answer/answer-model';
import { LlmAnswerModel } from './answer/llm-answer-model';
import type { DocsSearchConfig } from './config';
import { DocsSearchController } from './docs-search.controller';
import { DocsSearchService } from './docs-search.service';
import { Embedder } from './index/embedder';
import { PassageStore } from './index/passage-store';
import { Retriever } from './search/retriever';

/** The docs-search service: the documentation index (schema docs_search) and the ask RPC. */
@Module({
  controllers: [DocsSearchController],
  providers: [
    { provide: PassageStore, inject: [Database], useFactory: (db: Database) => new PassageStore(db) },
    {
      provide: Retriever,
      inject: [PassageStore, APP_CONFIG, LOGGER],
      useFactory: async (store: PassageStore, config: DocsSearchConfig, logger: Logger) => {
        if (!config.WDS_DOCS_EMBEDDING_DIR) {
          logger.warn('WDS_DOCS_EMBEDDING_DIR is not set: docs-search ranks by full text only');
          return new Retriever(store, undefined);
        }
        return new Retriever(store, await Embedder.load(config.WDS_DOCS_EMBEDDING_DIR), {
          rerankDepth: config.WDS_DOCS_RERANK_DEPTH,
        });
      },
    },
    {
      provide: DOCS_ANSWER_MODEL,
      inject: [APP_CONFIG, Retriever],
      useFactory: (config: DocsSearchConfig, retriever: Retriever) =>
        new LlmAnswerModel(new OpenAiCompatibleLlm(llmConfigFrom(config)), (texts, refs) =>
          retriever.similarity(texts, refs),
        ),
    },
    { provide: DOCS_TOKEN_SINK, inject: [Messaging], useFactory: (m: Messaging) => new ActivityRecorder(m) },
    AskDocs,
    DocsSearchService,
  ],
})
export class AppModule {}

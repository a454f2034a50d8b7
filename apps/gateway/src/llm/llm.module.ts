import { Module } from '@nestjs/common';
import { llmConfigFrom, OpenAiCompatibleLlm } from '@wds/llm';
import { APP_CONFIG } from '@wds/service-kit';
import type { GatewayConfig } from '../config';

/** Injection token of the gateway's one LLM port (`LlmPort`). */
export const GATEWAY_LLM = Symbol('GATEWAY_LLM');

/**
 * The gateway's language model: one client per process, shared by every feature that calls the
 * model here (crawl `prompt` → parameters, extract's web search query), so `WDS_LLM_CONCURRENCY`
 * caps the replica's calls together rather than once per feature.
 */
@Module({
  providers: [
    {
      provide: GATEWAY_LLM,
      inject: [APP_CONFIG],
      useFactory: (c: GatewayConfig) => new OpenAiCompatibleLlm(llmConfigFrom(c)),
    },
  ],
  exports: [GATEWAY_LLM],
})
export class GatewayLlmModule {}

import { envInt, parseEnv } from '@wds/config';
import { z } from 'zod';
import { LLM_FEATURES, type LlmFeature } from './types';

/** `json` → WDS_LLM_MODEL_JSON, `crawlParams` → WDS_LLM_MODEL_CRAWL_PARAMS. */
export function featureModelVar(feature: LlmFeature): string {
  return `WDS_LLM_MODEL_${feature.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

const featureModelShape = Object.fromEntries(
  LLM_FEATURES.map((f) => [featureModelVar(f), z.string().min(1).optional()]),
) as Record<string, z.ZodOptional<z.ZodString>>;

/**
 * The LLM variables, to extend a service's env schema with (`CommonEnv.extend(LlmEnvShape)`).
 * WDS_LLM_BASE_URL unset = LLM features answer a clear "not configured" error.
 */
export const LlmEnvShape = {
  WDS_LLM_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://127.0.0.1:8080/v1' })
    .optional(),
  WDS_LLM_API_KEY: z.string().min(1).optional(),
  WDS_LLM_MODEL: z.string().min(1).default('qwen2.5-coder-1.5b'),
  /** Per attempt. Local CPU models are slow: a 4k-token page takes about a minute on 2 cores. */
  WDS_LLM_TIMEOUT_MS: envInt({ min: 1000 }).default(180_000),
  WDS_LLM_MAX_RETRIES: envInt({ min: 0, max: 10 }).default(2),
  /** Concurrent requests this replica sends; more wait in a queue (bounded by their deadline). */
  WDS_LLM_CONCURRENCY: envInt({ min: 1, max: 1000 }).default(2),
  /** The model's context window in tokens (per request). */
  WDS_LLM_CONTEXT_TOKENS: envInt({ min: 512 }).default(8192),
  WDS_LLM_MAX_OUTPUT_TOKENS: envInt({ min: 16 }).default(1024),
  /** Characters per token used to estimate sizes before sending (conservative for English). */
  WDS_LLM_CHARS_PER_TOKEN: z.coerce.number().min(1).max(8).default(3),
  ...featureModelShape,
};

export const LlmEnv = z.object(LlmEnvShape);
export type LlmEnv = z.output<typeof LlmEnv>;

export interface LlmConfig {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  model: string;
  featureModels: Partial<Record<LlmFeature, string>>;
  timeoutMs: number;
  maxRetries: number;
  concurrency: number;
  contextTokens: number;
  maxOutputTokens: number;
  charsPerToken: number;
}

export function llmConfigFrom(env: LlmEnv): LlmConfig {
  const featureModels: Partial<Record<LlmFeature, string>> = {};
  const vars = env as unknown as Record<string, string | undefined>;
  for (const f of LLM_FEATURES) {
    const m = vars[featureModelVar(f)];
    if (m) featureModels[f] = m;
  }
  return {
    baseUrl: env.WDS_LLM_BASE_URL?.replace(/\/+$/, ''),
    apiKey: env.WDS_LLM_API_KEY,
    model: env.WDS_LLM_MODEL,
    featureModels,
    timeoutMs: env.WDS_LLM_TIMEOUT_MS,
    maxRetries: env.WDS_LLM_MAX_RETRIES,
    concurrency: env.WDS_LLM_CONCURRENCY,
    contextTokens: env.WDS_LLM_CONTEXT_TOKENS,
    maxOutputTokens: env.WDS_LLM_MAX_OUTPUT_TOKENS,
    charsPerToken: env.WDS_LLM_CHARS_PER_TOKEN,
  };
}

/** Parses only the LLM variables (tools and tests; services parse them with their own schema). */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig {
  return llmConfigFrom(parseEnv(LlmEnv, env));
}

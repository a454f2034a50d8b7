import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { MODEL_SERVER_START_TIMEOUT_MS, startTestModelServer } from '@wds/testing';
import type { RunningModelServer } from '@wds/local-infra';
import {
  compileSchema,
  LlmError,
  llmConfigFromEnv,
  OpenAiCompatibleLlm,
  SCHEMA_MISMATCH_WARNING,
  TRUNCATION_WARNING,
  type LlmConfig,
} from '../src';
import { startFaultProxy, type FaultProxy } from '@wds/testing';

// Real llama.cpp server with SmolLM2-135M: plumbing, not answer quality. CPU-bound on a shared
// machine, so each test gets a generous budget.
jest.setTimeout(600_000);
const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);

let server: RunningModelServer;
let proxy: FaultProxy;

const PRODUCT_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' }, inStock: { type: 'boolean' } },
  required: ['name', 'price', 'inStock'],
  additionalProperties: false,
};
const PAGE = '# Blue Kettle\n\nThe Blue Kettle costs $25.50 and is in stock. It boils 1.7 litres.';

function config(over: Partial<LlmConfig> = {}): LlmConfig {
  return {
    ...llmConfigFromEnv({ WDS_LLM_BASE_URL: server.baseUrl, WDS_LLM_MODEL: server.modelName }),
    maxOutputTokens: 48,
    contextTokens: 1024,
    ...over,
  };
}

beforeAll(async () => {
  server = await startTestModelServer({ contextTokens: 2048, parallel: 2 });
  proxy = await startFaultProxy(server.baseUrl);
}, MODEL_SERVER_START_TIMEOUT_MS);

afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

beforeEach(() => exporter.reset());

describe('LLM port against a real llama.cpp server', () => {
  it('completes text and reports the provider usage, traced as a GenAI client span', async () => {
    const llm = new OpenAiCompatibleLlm(config());
    const r = await llm.complete({
      feature: 'summary',
      system: 'Summarise the page in one sentence.',
      instruction: 'Summarise.',
      document: { text: PAGE },
    });
    expect(r.text.length).toBeGreaterThan(0);
    expect(r.usage.estimated).toBe(false);
    expect(r.usage.promptTokens).toBeGreaterThan(20);
    expect(r.usage.completionTokens).toBeGreaterThan(0);
    expect(r.usage.totalTokens).toBe(r.usage.promptTokens + r.usage.completionTokens);
    expect(r.truncated).toBe(false);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    expect(spans[0].name).toBe(`chat ${server.modelName}`);
    expect(spans[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': server.modelName,
      'gen_ai.usage.input_tokens': r.usage.promptTokens,
      'gen_ai.usage.output_tokens': r.usage.completionTokens,
      'server.address': '127.0.0.1',
      'wds.llm.feature': 'summary',
    });
    // No prompt or page text in the trace.
    expect(JSON.stringify(spans[0].attributes)).not.toContain('Kettle');
  });

  it('returns schema-valid structured output (json_schema response_format, checked with ajv)', async () => {
    const llm = new OpenAiCompatibleLlm(config());
    const r = await llm.structured({
      feature: 'json',
      schema: PRODUCT_SCHEMA,
      instruction: 'Extract the product.',
      document: { text: PAGE },
    });
    expect(r.valid).toBe(true);
    expect(compileSchema(PRODUCT_SCHEMA)(r.value)).toBe(true);
    expect(r.repaired).toBe(false);
    expect(r.usage.totalTokens).toBeGreaterThan(0);
  });

  it('repairs an answer that does not match the schema once, adding both calls to the usage', async () => {
    const llm = new OpenAiCompatibleLlm(config({ baseUrl: proxy.baseUrl }));
    proxy.rewriteNext(1, '{"name": "Blue Kettle"}');
    const before = proxy.requests;
    const r = await llm.structured({
      feature: 'json',
      schema: PRODUCT_SCHEMA,
      instruction: 'Extract the product.',
      document: { text: PAGE },
    });
    expect(proxy.requests - before).toBe(2);
    expect(r.repaired).toBe(true);
    expect(r.valid).toBe(true);
    expect(compileSchema(PRODUCT_SCHEMA)(r.value)).toBe(true);
    expect(r.warnings).toEqual([]);
    expect(exporter.getFinishedSpans()).toHaveLength(2);
    const sum = exporter
      .getFinishedSpans()
      .reduce((n, s) => n + Number(s.attributes['gen_ai.usage.input_tokens']), 0);
    expect(r.usage.promptTokens).toBe(sum);
  });

  it('never returns an invalid object as valid: after the repair round it warns and returns no value', async () => {
    const llm = new OpenAiCompatibleLlm(config({ baseUrl: proxy.baseUrl }));
    proxy.rewriteNext(2, 'not json at all');
    const r = await llm.structured({
      feature: 'json',
      schema: PRODUCT_SCHEMA,
      instruction: 'Extract the product.',
      document: { text: PAGE },
    });
    expect(r.valid).toBe(false);
    expect(r.value).toBeUndefined();
    expect(r.warnings).toContain(SCHEMA_MISMATCH_WARNING);
  });

  it('truncates a document that exceeds the context budget and says so', async () => {
    const llm = new OpenAiCompatibleLlm(config({ contextTokens: 512 }));
    const long = Array.from(
      { length: 200 },
      (_, i) => `Paragraph ${i}: the kettle has feature number ${i}.`,
    ).join('\n\n');
    const r = await llm.complete({
      feature: 'summary',
      instruction: 'Summarise.',
      document: { text: long },
      maxTokens: 16,
    });
    expect(r.truncated).toBe(true);
    expect(r.warnings).toEqual([TRUNCATION_WARNING]);
    // What was sent fit the configured window.
    expect(r.usage.promptTokens).toBeLessThanOrEqual(512);
  });

  it('shrinks the document and retries once when the provider reports a context overflow', async () => {
    // The port believes in 32k tokens; the server slot has 1024 (2048 / 2 slots).
    const llm = new OpenAiCompatibleLlm(config({ contextTokens: 32768, charsPerToken: 4 }));
    const long = 'The kettle is blue and boils water quickly. '.repeat(400);
    const r = await llm.complete({
      feature: 'summary',
      instruction: 'Summarise.',
      document: { text: long },
      maxTokens: 8,
    });
    expect(r.truncated).toBe(true);
    expect(r.usage.promptTokens).toBeLessThan(1024);
  });

  it('retries 5xx and 429 with back-off (honouring Retry-After), then succeeds', async () => {
    const llm = new OpenAiCompatibleLlm(config({ baseUrl: proxy.baseUrl, maxRetries: 2 }));
    proxy.failNext(1, 503);
    let before = proxy.requests;
    const r = await llm.complete({ feature: 'summary', instruction: 'Say OK.', maxTokens: 4 });
    expect(r.text.length).toBeGreaterThan(0);
    expect(proxy.requests - before).toBe(2);
    proxy.failNext(2, 429, { 'retry-after': '0' });
    before = proxy.requests;
    await llm.complete({ feature: 'summary', instruction: 'Say OK.', maxTokens: 4 });
    expect(proxy.requests - before).toBe(3);
  });

  it('gives up after the retries with a rate-limit error, and does not retry other 4xx', async () => {
    const llm = new OpenAiCompatibleLlm(config({ baseUrl: proxy.baseUrl, maxRetries: 1 }));
    proxy.failNext(5, 429, { 'retry-after': '0' });
    await expect(llm.complete({ feature: 'summary', instruction: 'x', maxTokens: 4 })).rejects.toMatchObject({
      kind: 'rate_limited',
    });
    proxy.failNext(0, 500);
    proxy.failNext(1, 422);
    const before = proxy.requests;
    await expect(llm.complete({ feature: 'summary', instruction: 'x', maxTokens: 4 })).rejects.toMatchObject({
      kind: 'provider',
      status: 422,
    });
    expect(proxy.requests - before).toBe(1);
  });

  it('refuses wrong credentials with a clear error', async () => {
    const keyed = await startTestModelServer({ apiKey: 'right-key', contextTokens: 1024 });
    try {
      const llm = new OpenAiCompatibleLlm(
        config({ baseUrl: keyed.baseUrl, apiKey: 'wrong-key', maxRetries: 0 }),
      );
      const err = await llm
        .complete({ feature: 'summary', instruction: 'x', maxTokens: 4 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LlmError);
      expect((err as LlmError).message).toContain('WDS_LLM_API_KEY');
      expect((err as LlmError).message).not.toContain('wrong-key');
      const ok = await new OpenAiCompatibleLlm(
        config({ baseUrl: keyed.baseUrl, apiKey: 'right-key' }),
      ).complete({ feature: 'summary', instruction: 'Say OK.', maxTokens: 4 });
      expect(ok.usage.totalTokens).toBeGreaterThan(0);
    } finally {
      await keyed.stop();
    }
  }, 120_000);

  it('times out a call that takes longer than the per-attempt timeout', async () => {
    const llm = new OpenAiCompatibleLlm(config({ timeoutMs: 1000, maxRetries: 0, maxOutputTokens: 2000 }));
    const t0 = Date.now();
    await expect(
      llm.complete({
        feature: 'summary',
        instruction: 'Write a very long story about kettles, at least 1500 words.',
        maxTokens: 2000,
      }),
    ).rejects.toMatchObject({ kind: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('answers not_configured without a provider and a clear error for an unreachable one', async () => {
    await expect(
      new OpenAiCompatibleLlm(config({ baseUrl: undefined })).complete({ feature: 'json', instruction: 'x' }),
    ).rejects.toMatchObject({ kind: 'not_configured' });
    const llm = new OpenAiCompatibleLlm(config({ baseUrl: 'http://127.0.0.1:9/v1', maxRetries: 1 }));
    await expect(llm.complete({ feature: 'json', instruction: 'x' })).rejects.toMatchObject({
      kind: 'provider',
    });
  });

  it('rejects an invalid JSON schema before calling the model', async () => {
    const llm = new OpenAiCompatibleLlm(config({ baseUrl: proxy.baseUrl }));
    const before = proxy.requests;
    await expect(
      llm.structured({
        feature: 'json',
        schema: { type: 'object', properties: { a: { type: 'no-such-type' } } },
        instruction: 'x',
      }),
    ).rejects.toMatchObject({ kind: 'invalid_schema' });
    expect(proxy.requests).toBe(before);
  });

  it('caps concurrent provider calls per replica', async () => {
    const llm = new OpenAiCompatibleLlm(config({ baseUrl: proxy.baseUrl, concurrency: 1 }));
    proxy.resetStats();
    await Promise.all(
      [1, 2, 3].map(() => llm.complete({ feature: 'summary', instruction: 'Say OK.', maxTokens: 4 })),
    );
    expect(proxy.requests).toBe(3);
    expect(proxy.maxInFlight).toBe(1);
    // Without the cap (concurrency 3) the same calls overlap at the proxy.
    const wide = new OpenAiCompatibleLlm(config({ baseUrl: proxy.baseUrl, concurrency: 3 }));
    proxy.resetStats();
    await Promise.all(
      [1, 2, 3].map(() => wide.complete({ feature: 'summary', instruction: 'Say OK.', maxTokens: 4 })),
    );
    expect(proxy.maxInFlight).toBeGreaterThan(1);
  });

  it("lets teams take turns for the replica's slots: one team's queue does not hold back another team's call", async () => {
    const llm = new OpenAiCompatibleLlm(config({ concurrency: 1 }));
    const run = async (tenants: { a?: string; b?: string }) => {
      const finished: string[] = [];
      const call = (name: string, tenant: string | undefined) =>
        llm
          .complete({ feature: 'summary', instruction: 'Say OK.', maxTokens: 4, tenant })
          .then(() => finished.push(name));
      const calls = [0, 1, 2, 3, 4].map((i) => call(`A${i}`, tenants.a));
      calls.push(call('B0', tenants.b));
      await Promise.all(calls);
      return finished;
    };
    // A0 holds the only slot while A1-A4 and then B0 queue: team A's turn, then team B's.
    expect(await run({ a: 'team-a', b: 'team-b' })).toEqual(['A0', 'A1', 'B0', 'A2', 'A3', 'A4']);
    // Calls without a tenant share one queue, first come first served: B0 waits for all of A's.
    expect(await run({})).toEqual(['A0', 'A1', 'A2', 'A3', 'A4', 'B0']);
  });

  it('has the model server hand its slots to teams in turn across replicas, not first come first served', async () => {
    // One slot, two replicas that each pass up to five calls at once (their own turns do not apply):
    // the turns are the server's (serve_model.py, by the hashed tenant header).
    const one = await startTestModelServer({ contextTokens: 1024, parallel: 1 });
    const front = await startFaultProxy(one.baseUrl);
    try {
      const replica = () =>
        new OpenAiCompatibleLlm({
          ...llmConfigFromEnv({ WDS_LLM_BASE_URL: front.baseUrl, WDS_LLM_MODEL: one.modelName }),
          maxOutputTokens: 24,
          contextTokens: 1024,
          concurrency: 5,
        });
      const [first, second] = [replica(), replica()];
      const run = async (tenants: { a?: string; b?: string }) => {
        front.resetStats();
        const finished: string[] = [];
        const call = (llm: OpenAiCompatibleLlm, name: string, tenant: string | undefined) =>
          llm
            .complete({ feature: 'summary', instruction: 'Count from 1 to 20.', maxTokens: 24, tenant })
            .then(() => finished.push(name));
        const calls = [0, 1, 2, 3, 4].map((i) => call(first, `A${i}`, tenants.a));
        // All of team A's calls are at the server before team B's.
        const until = Date.now() + 30_000;
        while (front.requests < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, 200));
        calls.push(call(second, 'B0', tenants.b));
        await Promise.all(calls);
        return finished.indexOf('B0');
      };
      // B0 waits for the call holding the slot and at most one more of team A's.
      expect(await run({ a: 'team-a', b: 'team-b' })).toBeLessThanOrEqual(2);
      // Without tenants one queue: B0 after all five.
      expect(await run({})).toBe(5);
    } finally {
      await front.close();
      await one.stop();
    }
  });

  it('uses per-feature model overrides', () => {
    const cfg = llmConfigFromEnv({
      WDS_LLM_BASE_URL: 'http://127.0.0.1:1/v1',
      WDS_LLM_MODEL: 'base',
      WDS_LLM_MODEL_CRAWL_PARAMS: 'big',
      WDS_LLM_MODEL_JSON: 'jsonm',
    });
    const llm = new OpenAiCompatibleLlm(cfg);
    expect(llm.modelFor('crawlParams')).toBe('big');
    expect(llm.modelFor('json')).toBe('jsonm');
    expect(llm.modelFor('summary')).toBe('base');
  });
});

import { ScrapeRequest } from '@wds/contracts';
import { llmConfigFromEnv, OpenAiCompatibleLlm } from '@wds/llm';
import { createLogger } from '@wds/observability';
import { keepsStructure } from './clean-content';
import { prepareJsonSchema } from './json-schema-shape';
import { LlmFormats } from './llm-formats';
import { splitSentences } from './sentences';

const logger = createLogger({ service: 'test', level: 'fatal' });
const opts = (body: Record<string, unknown>) => ScrapeRequest.parse({ url: 'https://example.com', ...body });

describe('json schema shape (api-v2 §4.2)', () => {
  it('wraps a root array under items and unwraps the answer', () => {
    const p = prepareJsonSchema({ type: 'array', items: { type: 'string' }, default: [] });
    expect(p.schema).toEqual({
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'string' } } },
      required: ['items'],
    });
    expect(p.unwrap({ items: ['a'] })).toEqual(['a']);
  });

  it('turns a bare property map into an object schema requiring every property', () => {
    const p = prepareJsonSchema({ name: { type: 'string' }, price: { type: 'number' } });
    expect(p.schema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, price: { type: 'number' } },
      required: ['name', 'price'],
    });
  });

  it('drops default keywords but keeps a property named default; no schema = any object', () => {
    const p = prepareJsonSchema({
      type: 'object',
      properties: { default: { type: 'string', default: 'x' } },
    });
    expect(p.schema).toEqual({ type: 'object', properties: { default: { type: 'string' } } });
    expect(prepareJsonSchema(undefined).schema).toEqual({ type: 'object' });
  });
});

describe('sentences for highlights', () => {
  it('splits markdown into verbatim sentences, headings and list items as their own units', () => {
    const md = '# Kettles\n\nThe kettle boils fast. It costs $25.\n\n- Blue colour\n---\n';
    const s = splitSentences(md).map((x) => x.text);
    expect(s).toEqual(['# Kettles', 'The kettle boils fast.', 'It costs $25.', '- Blue colour']);
    for (const t of s) expect(md.includes(t)).toBe(true);
  });
});

describe('onlyCleanContent structure check', () => {
  const original = '# Title\n\nText.\n\n## Install\n\n```sh\nnpm i x\n```\n\nAccept cookies?';
  it('accepts a cleaned page that keeps every heading and code block', () => {
    expect(keepsStructure(original, '# Title\n\nText.\n\n## Install\n\n```sh\nnpm i x\n```')).toBe(true);
  });
  it('rejects one that lost a heading or a code block', () => {
    expect(keepsStructure(original, '# Title\n\nText.\n\n```sh\nnpm i x\n```')).toBe(false);
    expect(keepsStructure(original, '# Title\n\nText.\n\n## Install')).toBe(false);
  });
});

describe('LlmFormats.validate', () => {
  const configured = new LlmFormats(
    new OpenAiCompatibleLlm(llmConfigFromEnv({ WDS_LLM_BASE_URL: 'http://127.0.0.1:9/v1' })),
    logger,
    undefined,
  );
  const unconfigured = new LlmFormats(new OpenAiCompatibleLlm(llmConfigFromEnv({})), logger, undefined);

  it('refuses LLM formats and onlyCleanContent without a provider, naming the variable', () => {
    expect(() => unconfigured.validate(opts({ formats: ['summary'] }))).toThrow(
      /'summary' format needs an LLM.*WDS_LLM_BASE_URL/,
    );
    expect(() => unconfigured.validate(opts({ onlyCleanContent: true }))).toThrow(
      /'onlyCleanContent' needs an LLM/,
    );
    expect(() => unconfigured.validate(opts({ formats: ['markdown'] }))).not.toThrow();
  });

  it('refuses a json schema that is not a JSON Schema', () => {
    expect(() =>
      configured.validate(
        opts({
          formats: [{ type: 'json', schema: { type: 'object', properties: { a: { type: 'nope' } } } }],
        }),
      ),
    ).toThrow(/schema is invalid/);
    expect(() =>
      configured.validate(
        opts({
          formats: [{ type: 'json', schema: { type: 'object', properties: { a: { type: 'string' } } } }],
        }),
      ),
    ).not.toThrow();
  });

  it('answers the zero-data-retention warning for every requested LLM feature and calls no model', async () => {
    const r = await configured.execute({
      billing: { teamId: 't', jobId: 'j', endpoint: 'scrape', apiKey: null },
      options: opts({ formats: ['summary', { type: 'question', question: 'q?' }], onlyCleanContent: true }),
      zeroDataRetention: true,
      document: { markdown: '# Page' },
      url: 'https://example.com',
      deadline: Date.now() + 1000,
    });
    expect(r.warnings).toEqual([
      'onlyCleanContent is not supported with zero data retention.',
      'The summary format is not supported with zero data retention.',
      'The question format is not supported with zero data retention.',
    ]);
    expect(r.credits).toBe(0);
    expect(r.fields).toEqual({});
  });
});

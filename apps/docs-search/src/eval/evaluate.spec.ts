import { answersQuestion, citationPrecision, matches, plain, recallAt } from './evaluate';

const errorsRow = {
  source: 'docs/api-v2.md',
  title: 'Web Data Service API, version 2 › Errors',
  ref: 'docs/api-v2.md#errors',
  body: '| 429 | Rate limit exceeded |',
};
const operation = {
  source: 'openapi',
  title: 'API › GET /v2/crawl/{id} — Crawl status',
  ref: 'openapi#/paths/~1v2~1crawl~1{id}/get',
  body: 'HTTP answers: 200 Success; 429 Rate or concurrency limit; see Retry-After.',
};
const fieldPart = {
  source: 'openapi',
  title: 'API › POST /v2/crawl — Start a crawl › delay',
  ref: 'openapi#/components/schemas/CrawlRequest/properties/delay',
  body: 'Body field delay: number',
};

describe('evaluation matching', () => {
  it('matches a source with one heading of the trail, or one exact citation', () => {
    expect(matches(errorsRow, { source: 'docs/api-v2.md', section: 'errors' })).toBe(true);
    expect(matches(errorsRow, { source: 'docs/api-v2.md', section: 'Web Data Service API' })).toBe(false);
    expect(matches(errorsRow, { source: 'README.md' })).toBe(false);
    expect(matches(operation, { ref: 'openapi#/paths/~1v2~1crawl~1{id}/get' })).toBe(true);
    expect(matches(fieldPart, { ref: 'openapi#/paths/~1v2~1crawl~1{id}/get' })).toBe(false);
  });

  it('with `says`, matches only passages whose text states it', () => {
    const e = { source: 'openapi', says: '429 Rate or concurrency limit' };
    expect(matches(operation, e)).toBe(true);
    expect(matches(fieldPart, e)).toBe(false);
    // A citation known only by its reference (no body) cannot be shown to state it.
    expect(matches({ source: 'openapi', title: '', ref: operation.ref }, e)).toBe(false);
  });

  it('reads `says` without code and emphasis marks, and table bars as spaces', () => {
    const row = {
      source: 'README.md',
      title: 'Configuration',
      ref: 'README.md#configuration',
      body: '| `WDS_USAGE_RETENTION_DAYS` | `90` | per-request usage rows (`billing.usage`) older than this are **deleted** |',
    };
    expect(plain('`OTEL_TRACES_SAMPLER`/`_ARG` choose')).toBe('otel_traces_sampler/_arg choose');
    expect(
      matches(row, { source: 'README.md', says: 'usage rows (billing.usage) older than this are deleted' }),
    ).toBe(true);
    expect(matches(row, { source: 'README.md', says: 'WDS_USAGE_RETENTION_DAYS 90 per-request' })).toBe(true);
    expect(matches(row, { source: 'README.md', says: 'rows (billing.usage) newer' })).toBe(false);
  });

  it('scores citations and recall by the expectations', () => {
    const question = {
      q: 'What status code do I get when rate limited?',
      expect: [{ source: 'openapi', says: '429 Rate' }],
    };
    expect(answersQuestion(operation, question)).toBe(true);
    expect(citationPrecision([{ question, cited: [operation, fieldPart] }])).toBe(0.5);
    expect(recallAt(1, [{ question, retrieved: [fieldPart, operation] as never }])).toBe(0);
    expect(recallAt(2, [{ question, retrieved: [fieldPart, operation] as never }])).toBe(1);
  });
});

import { compileSchema } from '@wds/llm';
import { checkGenerated, CRAWL_OPTIONS_SCHEMA } from './crawl-params.usecase';

describe('crawl options generated from a prompt', () => {
  it('keeps valid options and drops invalid regular expressions with a warning', () => {
    const r = checkGenerated('https://example.com', {
      // A lookahead is JavaScript but not RE2, which crawls match with: dropped too.
      includePaths: ['^/blog/.*', '(unclosed', '^/(?!private)'],
      excludePaths: ['['],
      limit: 50,
      sitemap: 'skip',
    });
    expect(r.options).toEqual({ includePaths: ['^/blog/.*'], limit: 50, sitemap: 'skip' });
    expect(r.warnings).toEqual([
      "Dropped the generated includePaths entry '(unclosed': it is not a valid regular expression.",
      "Dropped the generated includePaths entry '^/(?!private)': it is not a valid regular expression.",
      "Dropped the generated excludePaths entry '[': it is not a valid regular expression.",
    ]);
  });

  it('drops values the public crawl schema refuses', () => {
    const r = checkGenerated('https://example.com', { limit: 0, delay: 5 });
    expect(r.options).toEqual({ delay: 5 });
    expect(r.warnings[0]).toMatch(/^Dropped the generated option limit/);
  });

  it('asks the model for integers where the Python SDK types integers', () => {
    const validate = compileSchema(CRAWL_OPTIONS_SCHEMA as unknown as Record<string, unknown>);
    expect(validate({ limit: 10, delay: 1 })).toBe(true);
    expect(validate({ limit: 10.5 })).toBe(false);
    expect(validate({ delay: 0.5 })).toBe(false);
    expect(validate({ maxDepth: 3 })).toBe(false);
  });
});

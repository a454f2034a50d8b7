import { buildOpenApiDocument } from '@wds/contracts';
import { openApiPassages, pointerToken } from './openapi-passages';

describe('openApiPassages', () => {
  const doc = buildOpenApiDocument();
  const passages = openApiPassages(doc);

  it('cites every operation of the served document by its JSON pointer', () => {
    const refs = new Set(passages.map((p) => p.ref));
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(methods)) {
        expect(refs).toContain(`openapi#/paths/${pointerToken(path)}/${method}`);
      }
    }
    expect(refs).toContain('openapi#/paths/~1v2~1crawl/post');
    expect(new Set(passages.map((p) => p.ref)).size).toBe(passages.length);
  });

  it('describes request fields with their types, defaults and limits', () => {
    const crawl = passages.filter(
      (p) =>
        p.title.startsWith('API › POST /v2/crawl —') ||
        p.ref.startsWith('openapi#/components/schemas/CrawlRequest'),
    );
    const text = crawl.map((p) => p.body).join('\n');
    expect(text).toMatch(/Body field sitemap: one of "include", "skip", "only", default "include"/);
    expect(text).toMatch(/Body field limit: integer, 1 to 1000000, default 10000/);
    expect(text).toMatch(/Body field url \(required\): string \(uri\)/);
  });
});

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

  it('says what an HTTP answer few operations give means, and only lists the common ones', () => {
    const interact = passages.find((p) => p.ref === 'openapi#/paths/~1v2~1scrape~1{jobId}~1interact/post');
    expect(interact?.body).toMatch(
      /HTTP answers: 200, 400, 401, 402, 403, 404, 409, 410, 429, 500, 502, 503\./,
    );
    expect(interact?.body).toMatch(/ 410: Gone \(e\.g\. browser session already destroyed\)/);
    // Every operation answers 429: its meaning is in the API spec's errors table, not in 50 passages.
    expect(passages.filter((p) => /429: Rate/.test(p.body))).toHaveLength(0);
  });

  it("describes the success answer's fields, a schema shared by two routes once", () => {
    const status = passages.filter((p) => p.title.startsWith('API › GET /v2/batch/scrape/{id} —'));
    expect(status[0].body).toMatch(
      /Answer body \(200\): BatchScrapeStatusResponse with fields success, status/,
    );
    const text = status.map((p) => p.body).join('\n');
    expect(text).toMatch(/Answer field status: one of "scraping", "completed", "failed", "cancelled"/);
    expect(text).toMatch(/Answer field total: integer\. Pages attempted/);
    // POST /v2/browser and its alias POST /v2/interact share their schemas.
    const browserParts = passages.filter((p) =>
      p.ref.startsWith('openapi#/components/schemas/CreateBrowserRequest/'),
    );
    expect(browserParts).toHaveLength(1);
  });
});

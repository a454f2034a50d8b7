import { randomUUID } from 'node:crypto';
import { SCRAPE_RPC } from '@wds/contracts';
import { FIXTURE_TEXT, startFixtureSite, type FixtureSite } from '@wds/testing';
import { startScraper, type ScraperHarness } from '../support/scraper-harness';

describe('scraper service: scrape over NATS (fixture site allow-listed)', () => {
  let site: FixtureSite;
  let scraper: ScraperHarness;
  const team = () => `team-${randomUUID()}`;

  beforeAll(async () => {
    site = await startFixtureSite();
    scraper = await startScraper({ WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1' });
    // Starting a service (NATS transport, PostgreSQL pool, migrations) took over jest's default
    // 5 s under load 10-12 on this 2-core machine; the tests' own limits are unchanged.
  }, 60_000);
  afterAll(async () => {
    await scraper?.stop();
    await site?.close();
  });

  it('returns main-content markdown, links and metadata of an article', async () => {
    const url = `${site.url}/article`;
    const reply = await scraper.scrape(team(), { url, formats: ['markdown', 'links'] });
    const md = reply.document.markdown ?? '';
    expect(md).toContain(FIXTURE_TEXT.articleLead);
    expect(md).toContain(FIXTURE_TEXT.articleCode);
    expect(md).toMatch(/^#+ /m);
    expect(md).not.toContain(FIXTURE_TEXT.navText);
    expect(md).not.toContain(FIXTURE_TEXT.footerText);
    expect(reply.document.links).toContain('https://example.com/reference');
    expect(reply.document.html).toBeUndefined();
    const meta = reply.document.metadata!;
    expect(meta).toMatchObject({ statusCode: 200, sourceURL: url, url, cacheState: 'miss', creditsUsed: 1 });
    expect(meta.contentType).toMatch(/text\/html/);
    expect(meta.scrapeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.creditsUsed).toBe(1);
  });

  it('onlyMainContent false keeps navigation and footer', async () => {
    const reply = await scraper.scrape(team(), {
      url: `${site.url}/article`,
      onlyMainContent: false,
      maxAge: 0,
    });
    expect(reply.document.markdown).toContain(FIXTURE_TEXT.footerText);
  });

  it('reports every metadata field and other meta tags', async () => {
    const reply = await scraper.scrape(team(), { url: `${site.url}/meta`, formats: ['html', 'rawHtml'] });
    const meta = reply.document.metadata!;
    expect(meta.title).toBe(FIXTURE_TEXT.metaTitle);
    expect(meta.description).toBe(FIXTURE_TEXT.metaDescription);
    expect(meta.language).toBe(FIXTURE_TEXT.metaLanguage);
    expect(meta.keywords).toBe(FIXTURE_TEXT.metaKeywords);
    expect(meta.ogLocaleAlternate).toEqual(FIXTURE_TEXT.ogLocaleAlternates);
    expect(meta.ogTitle ?? meta['og:title']).toBe(`OG ${FIXTURE_TEXT.metaTitle}`);
    expect(reply.document.rawHtml).toContain('<meta name="robots"');
    expect(reply.document.markdown).toBeUndefined();
  });

  it.each([404, 500])('answers a %i page as a successful scrape with that statusCode', async (status) => {
    const reply = await scraper.scrape(team(), { url: `${site.url}/${status}` });
    expect(reply.document.metadata?.statusCode).toBe(status);
    expect(reply.document.markdown).toContain(
      status === 404 ? FIXTURE_TEXT.notFound : FIXTURE_TEXT.serverError,
    );
  });

  it('follows redirects: url is the final page, sourceURL the requested one', async () => {
    const requested = `${site.url}/redirect-chain`;
    const reply = await scraper.scrape(team(), { url: requested });
    expect(reply.document.metadata).toMatchObject({ sourceURL: requested, url: `${site.url}/article` });
    expect(reply.document.markdown).toContain(FIXTURE_TEXT.articleLead);
  });

  it('refuses a redirect into a private address', async () => {
    await expect(scraper.scrape(team(), { url: `${site.url}/redirect-private` })).rejects.toMatchObject({
      code: 'DESTINATION_BLOCKED',
    });
  });

  it('times out end to end with SCRAPE_TIMEOUT', async () => {
    const started = Date.now();
    await expect(
      scraper.scrape(team(), { url: `${site.url}/slow?ms=5000`, timeout: 1000 }),
    ).rejects.toMatchObject({
      code: 'SCRAPE_TIMEOUT',
    });
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('decodes a latin-1 page', async () => {
    const reply = await scraper.scrape(team(), { url: `${site.url}/iso-8859-1` });
    expect(reply.document.markdown).toContain(FIXTURE_TEXT.latin1Text);
  });

  it('extracts a PDF page by page and bills 1 credit per page', async () => {
    const reply = await scraper.scrape(team(), { url: `${site.url}/sample.pdf` });
    const md = reply.document.markdown ?? '';
    expect(md.indexOf(FIXTURE_TEXT.pdfPages[0][0])).toBeGreaterThanOrEqual(0);
    expect(md.indexOf(FIXTURE_TEXT.pdfPages[1][0])).toBeGreaterThan(md.indexOf(FIXTURE_TEXT.pdfPages[0][0]));
    expect(reply.document.metadata).toMatchObject({ numPages: 2, title: FIXTURE_TEXT.pdfTitle });
    expect(reply.creditsUsed).toBe(2);
  });

  it('returns the PDF base64 at a flat 1 credit with parsers: []', async () => {
    const reply = await scraper.scrape(team(), { url: `${site.url}/sample.pdf`, parsers: [] });
    const bytes = Buffer.from(reply.document.markdown ?? '', 'base64');
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(reply.creditsUsed).toBe(1);
  });

  it('moves a document larger than a NATS message by reference, read back in chunks', async () => {
    const reply = await scraper.scrapeRaw(team(), {
      url: `${site.url}/large`,
      formats: ['markdown', 'rawHtml'],
    });
    expect(reply.document).toBeUndefined();
    expect(reply.documentRef!.chunks).toBeGreaterThanOrEqual(1);
    const teamId = `team-${randomUUID()}`;
    const full = await scraper.scrape(teamId, {
      url: `${site.url}/large`,
      formats: ['markdown', 'rawHtml'],
      maxAge: 0,
    });
    expect(full.document.rawHtml!.length).toBeGreaterThan(1_000_000);
    expect(full.document.markdown).toContain('Section 1000');
    // the stored document is readable by its own team only
    const other = scraper.client.request(SCRAPE_RPC.documentChunk, {
      teamId: 'intruder',
      jobId: full.document.metadata!.scrapeId!,
      index: 0,
    });
    await expect(other).rejects.toMatchObject({ code: 'FORBIDDEN' });
    // Two scrapes of a 1 MB+ page (each transformed and stored in chunks): well under a second on
    // an idle machine, past jest's default 5 s when the suites share two cores with a model server.
  }, 60_000);

  it('GET returns a stored scrape to its team only', async () => {
    const owner = team();
    const reply = await scraper.scrape(owner, { url: `${site.url}/docs/a`, maxAge: 0 });
    const jobId = reply.document.metadata!.scrapeId!;
    const got = await scraper.client.request(SCRAPE_RPC.get, { teamId: owner, jobId });
    // The whole document, metadata included (the row shares the cache entry's gzip plus a patch).
    expect(got.document).toEqual(reply.document);
    expect(got.document?.metadata).toMatchObject({ scrapeId: jobId, cacheState: 'miss' });
    await expect(scraper.client.request(SCRAPE_RPC.get, { teamId: team(), jobId })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(
      scraper.client.request(SCRAPE_RPC.get, { teamId: owner, jobId: randomUUID() }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses LLM features with BAD_REQUEST naming them; browser features need a browser-pool replica', async () => {
    await expect(scraper.scrape(team(), { url: site.url, formats: ['summary'] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining("'summary'"),
    });
    // No browser-pool runs in this suite (see browser-engine.spec.ts for rendering).
    await expect(scraper.scrape(team(), { url: site.url, waitFor: 500 })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('browser-pool'),
    });
  });
});

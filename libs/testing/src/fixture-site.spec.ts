import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import {
  FIXTURE_TEXT,
  PRIVATE_REDIRECT_TARGET,
  SITE_TREE,
  startFixtureSite,
  type FixtureSite,
} from './fixture-site';
import { buildPdf } from './fixture-pdf';

describe('fixture site', () => {
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite();
  });
  afterAll(() => site.close());

  const get = (path: string, init?: RequestInit) =>
    fetch(`${site.url}${path}`, { redirect: 'manual', ...init });

  it('serves the article with boilerplate around it and counts hits', async () => {
    const res = await get('/article');
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    for (const text of [FIXTURE_TEXT.articleTitle, FIXTURE_TEXT.cookieText, FIXTURE_TEXT.footerText]) {
      expect(body).toContain(text);
    }
    expect(body).toMatch(/<article>[\s\S]*<table>[\s\S]*class="language-typescript"[\s\S]*<\/article>/);
    expect(body).toContain('src="data:image/png;base64,');
    expect(site.hits('/article')).toBe(1);
    await get('/article?x=1');
    expect(site.hits('/article')).toBe(2);
  });

  it('has rich metadata with absolute URLs', async () => {
    const body = await (await get('/meta')).text();
    expect(body).toContain(`<html lang="${FIXTURE_TEXT.metaLanguage}">`);
    expect(body.match(/og:locale:alternate/g)).toHaveLength(2);
    expect(body).toContain(`<meta property="og:url" content="${site.url}/meta">`);
  });

  it('redirects, including a chain and a jump to a private address', async () => {
    const one = await get('/redirect');
    expect([one.status, one.headers.get('location')]).toEqual([301, '/article']);
    const followed = await fetch(`${site.url}/redirect-chain`);
    expect(followed.url).toBe(`${site.url}/article`);
    expect(followed.redirected).toBe(true);
    const priv = await get('/redirect-private');
    expect(priv.headers.get('location')).toBe(PRIVATE_REDIRECT_TARGET);
  });

  it('answers error pages with HTML bodies', async () => {
    for (const [path, status, text] of [
      ['/404', 404, FIXTURE_TEXT.notFound],
      ['/no/such/page', 404, FIXTURE_TEXT.notFound],
      ['/500', 500, FIXTURE_TEXT.serverError],
    ] as const) {
      const res = await get(path);
      expect(res.status).toBe(status);
      expect(await res.text()).toContain(text);
    }
  });

  it('delays /slow by the requested time', async () => {
    const t0 = Date.now();
    const res = await get('/slow?ms=300');
    expect(await res.text()).toContain(FIXTURE_TEXT.slowText);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('serves robots.txt and sitemaps, one of them gzipped', async () => {
    expect(await (await get('/robots.txt')).text()).toContain(`Sitemap: ${site.url}/sitemap.xml`);
    expect(await (await get('/sitemap.xml')).text()).toContain(`<loc>${site.url}/docs/a</loc>`);
    expect(await (await get('/sitemap-index.xml')).text()).toContain(`${site.url}/sitemap-blog.xml.gz`);
    const gz = Buffer.from(await (await get('/sitemap-blog.xml.gz')).arrayBuffer());
    expect(gunzipSync(gz).toString()).toContain(`<loc>${site.url}/blog/first-post</loc>`);
  });

  it('links the site tree pages to each other', async () => {
    for (const path of SITE_TREE) {
      const body = await (await get(path)).text();
      expect(body).toMatch(/<a href="\/(docs|blog)/);
    }
    expect(await (await get('/docs/a')).text()).toContain('href="/docs/b"');
  });

  it('serves ISO-8859-1 bytes with that charset', async () => {
    const res = await get('/iso-8859-1');
    expect(res.headers.get('content-type')).toBe('text/html; charset=ISO-8859-1');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.includes(Buffer.from('Caf\xe9', 'latin1'))).toBe(true);
    expect(bytes.toString('latin1')).toContain(FIXTURE_TEXT.latin1Text);
  });

  it('serves a two-page PDF that a real parser reads', async () => {
    const res = await get('/sample.pdf');
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const pages = await pdfPageTexts(Buffer.from(await res.arrayBuffer()));
    expect(pages).toHaveLength(2);
    expect(pages[0]).toContain(FIXTURE_TEXT.pdfPages[0][0]);
    expect(pages[1]).toContain(FIXTURE_TEXT.pdfPages[1][1]);
  });

  it('serves a page larger than 1 MB and the script-rendered shell', async () => {
    const large = await (await get('/large')).arrayBuffer();
    expect(large.byteLength).toBeGreaterThan(1024 * 1024);
    const shell = await (await get('/script-rendered')).text();
    expect(shell).toContain('<div id="root"></div>');
    expect(shell).toContain(FIXTURE_TEXT.scriptRendered);
  });

  it('closes even with a request still pending', async () => {
    const other = await startFixtureSite();
    const pending = fetch(`${other.url}/slow?ms=30000`).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 100));
    await other.close();
    // fetch rejects with a TypeError from another realm, so no instanceof check.
    expect(await pending).toHaveProperty('message', 'fetch failed');
  });
});

describe('buildPdf', () => {
  it('writes a cross-reference table whose offsets point at the objects', () => {
    const pdf = buildPdf([['a (b) \\ c'], ['d']], 'T').toString('latin1');
    const xrefAt = Number(/startxref\n(\d+)/.exec(pdf)![1]);
    const entries = pdf.slice(xrefAt).split('\n').slice(3, 9);
    entries.forEach((entry, i) => {
      const offset = Number(entry.slice(0, 10));
      expect(pdf.slice(offset, offset + 10)).toMatch(new RegExp(`^${i + 1} 0 obj`));
    });
    expect(pdf).toContain('(a \\(b\\) \\\\ c) Tj');
  });
});

/** pdf.js needs a real dynamic import, which jest's module sandbox lacks: parse in a plain node. */
async function pdfPageTexts(pdf: Buffer): Promise<string[]> {
  const script = `
    const { PDFParse } = require('pdf-parse');
    const parser = new PDFParse({ data: new Uint8Array(Buffer.from(process.argv[1], 'base64')) });
    parser.getText().then((t) => { process.stdout.write(JSON.stringify(t.pages.map((p) => p.text))); return parser.destroy(); });
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, pdf.toString('base64')]);
  return JSON.parse(stdout) as string[];
}

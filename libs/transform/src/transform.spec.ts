import { transformHtml } from './transform';

const PAGE = `<!DOCTYPE html>
<html lang="de-CH"><head>
<meta charset="utf-8">
<title>  Über   uns &amp; mehr </title>
<meta name="description" content="Wer wir sind">
<meta name="keywords" content="a, b">
<meta name="robots" content="noindex">
<meta property="og:title" content="OG Title"><meta property="og:description" content="OG desc">
<meta property="og:url" content="https://example.ch/ueber"><meta property="og:image" content="/og.png">
<meta property="og:site_name" content="Example"><meta property="og:locale" content="de_CH">
<meta property="og:locale:alternate" content="fr_CH"><meta property="og:locale:alternate" content="it_CH">
<meta property="article:published_time" content="2024-05-01T10:00:00Z">
<meta name="DC.creator" content="Anna"><meta name="dc.subject" content="Team">
<meta itemprop="author" content="Anna B."><meta http-equiv="content-language" content="de">
<meta name="twitter:card" content="summary"><meta name="author" content="One"><meta name="author" content="Two">
<link rel="apple-touch-icon" href="/touch.png"><link rel="icon" href="/favicon.ico">
<script>var s = '<a href="/in-script">x</a>';</script>
</head><body>
<nav><a href="/">Home</a> <a href="#top">Top</a> <a href="mailto:hi@example.ch">Mail</a> <a href="/kontakt">Kontakt</a></nav>
<main><h1>Über uns</h1><p>Wir sind ein <a href="team.html">Team</a>.</p>
<img src="/img/a.jpg" alt="A"><img src="data:image/png;base64,AAAA" alt="inline">
<picture><source srcset="/img/b-1x.webp 1x, /img/b-2x.webp 2x"><img src="/img/b.jpg" alt="B"></picture>
<a href="/kontakt">Kontakt</a></main>
<footer><a href="https://other.example.org/impressum">Impressum</a></footer>
</body></html>`;

const URL = 'https://example.ch/ueber/index.html';

describe('transformHtml', () => {
  const all = transformHtml(PAGE, {
    url: URL,
    formats: new Set(['markdown', 'html', 'rawHtml', 'links', 'images']),
  });

  it('extracts the well-known metadata fields', () => {
    expect(all.metadata).toMatchObject({
      title: 'Über uns & mehr',
      description: 'Wer wir sind',
      language: 'de-CH',
      keywords: 'a, b',
      robots: 'noindex',
      ogTitle: 'OG Title',
      ogDescription: 'OG desc',
      ogUrl: 'https://example.ch/ueber',
      ogImage: '/og.png',
      ogSiteName: 'Example',
      ogLocale: 'de_CH',
      ogLocaleAlternate: ['fr_CH', 'it_CH'],
      favicon: 'https://example.ch/favicon.ico',
    });
  });

  it('keeps every other meta tag under its own name, joining duplicates', () => {
    expect(all.metadata).toMatchObject({
      'article:published_time': '2024-05-01T10:00:00Z',
      'DC.creator': 'Anna',
      'dc.subject': 'Team',
      author: 'Anna B., One, Two', // itemprop=author shares the key with name=author
      'twitter:card': 'summary',
      'content-language': 'de',
      'og:locale:alternate': 'fr_CH, it_CH',
    });
    expect(all.metadata).not.toHaveProperty('sourceURL');
    expect(all.metadata).not.toHaveProperty('statusCode');
  });

  it('lists unique absolute http(s) links of the whole page, skipping fragments and other schemes', () => {
    expect(all.links).toEqual([
      'https://example.ch/',
      'https://example.ch/kontakt',
      'https://example.ch/ueber/team.html',
      'https://other.example.org/impressum',
    ]);
  });

  it('lists unique absolute images: img src, best srcset candidate, og:image; no data: URLs', () => {
    expect(all.images).toEqual([
      'https://example.ch/img/a.jpg',
      'https://example.ch/img/b-2x.webp',
      'https://example.ch/img/b.jpg',
      'https://example.ch/og.png',
    ]);
  });

  it('returns the input unchanged as rawHtml', () => {
    expect(all.rawHtml).toBe(PAGE);
  });

  it('returns cleaned html of the main content with absolute URLs and no scripts', () => {
    expect(all.html).toBe(
      '<main><h1>Über uns</h1><p>Wir sind ein <a href="https://example.ch/ueber/team.html">Team</a>.</p>\n' +
        '<img src="https://example.ch/img/a.jpg" alt="A"><img src="data:image/png;base64,AAAA" alt="inline">\n' +
        '<picture><source srcset="https://example.ch/img/b-1x.webp 1x, https://example.ch/img/b-2x.webp 2x">' +
        '<img src="https://example.ch/img/b.jpg" alt="B"></picture>\n' +
        '<a href="https://example.ch/kontakt">Kontakt</a></main>',
    );
  });

  it('renders the main content as markdown', () => {
    expect(all.markdown).toBe(
      '# Über uns\n\nWir sind ein [Team](https://example.ch/ueber/team.html).\n\n' +
        '![A](https://example.ch/img/a.jpg)![inline](<Base64-Image-Removed>) ![B](https://example.ch/img/b.jpg) ' +
        '[Kontakt](https://example.ch/kontakt)',
    );
  });

  it('computes only the requested formats (metadata always)', () => {
    const r = transformHtml(PAGE, { url: URL, formats: new Set(['links']) });
    expect(Object.keys(r).sort()).toEqual(['links', 'metadata']);
  });

  it('keeps the whole document in html when onlyMainContent is false', () => {
    const r = transformHtml(PAGE, { url: URL, formats: new Set(['html']), onlyMainContent: false });
    expect(r.html).toContain('<nav>');
    expect(r.html).toContain('<title>  Über   uns &amp; mehr </title>');
    expect(r.html).not.toContain('<script');
  });

  it('works on decoded strings independent of the original charset', () => {
    const r = transformHtml('<meta charset="windows-1252"><p>Grüße – “quoted” 日本語 😀</p>', {
      url: URL,
      formats: new Set(['markdown']),
    });
    expect(r.markdown).toBe('Grüße – “quoted” 日本語 😀');
  });

  it('uses og:title when there is no <title>', () => {
    const r = transformHtml('<meta property="og:title" content="Only OG"><p>x</p>', {
      url: URL,
      formats: new Set(),
    });
    expect(r.metadata.title).toBe('Only OG');
  });
});

describe('malformed HTML', () => {
  const md = (html: string): string =>
    transformHtml(html, { url: 'https://x.test/', formats: new Set(['markdown']), onlyMainContent: false })
      .markdown ?? '';

  it('closes implied paragraphs, list items and cells', () => {
    expect(md('<p>one<p>two<ul><li>a<li>b</ul>')).toBe('one\n\ntwo\n\n- a\n- b');
    expect(md('<table><tr><th>h1<th>h2<tr><td>1<td>2</table>')).toBe('| h1 | h2 |\n| --- | --- |\n| 1 | 2 |');
  });

  it('survives unclosed and stray tags, uppercase markup and bare <', () => {
    expect(md('<DIV><B>bold<I>both</B> after</DIV></span></div><p>a < b & c')).toBe(
      '**bold*both*** after\n\na < b & c',
    );
    expect(md('<p>text <a href="/x">link')).toBe('text [link](https://x.test/x)');
  });

  it('reads end tags with or without a search for their >, and tag names that lower-case to known ones', () => {
    expect(md('<p>a</p ><p>b</P\n>c<em>d</em\tx>e</p')).toBe('a\n\nb\n\nc*d*e');
    // U+212A (Kelvin sign) lower-cases to "k": the tag is a blockquote with a blockquote's traits.
    expect(md('<p>a</p><bloc\u212Aquote>quoted</bloc\u212Aquote>')).toBe('a\n\n> quoted');
  });

  it('handles truncated documents and comments', () => {
    expect(md('<p>kept<!-- hidden <p>no</p> --> too</p><p>cut <b')).toBe('kept too\n\ncut');
    expect(md('<p>x</p><!-- never closed <p>y</p>')).toBe('x');
  });

  it('skips script/svg bodies robustly: markup-like strings, uppercase end tags, nested svg', () => {
    expect(md('<p>a</p><SCRIPT>if (x < y) document.write("</div><p>no</p>")</SCRIPT ><p>b</p>')).toBe(
      'a\n\nb',
    );
    expect(md('<p>a</p><svg><svg><text>no</text></svg><text>no</text></svg><p>b</p>')).toBe('a\n\nb');
    expect(md('<p>a</p><script>var s = "</scripts>";</script><p>b</p>')).toBe('a\n\nb');
  });

  it('stays bounded on thousands of unclosed elements', () => {
    const deep = `${'<div><span>'.repeat(5000)}deep text`;
    expect(md(deep)).toBe('deep text');
  });
});

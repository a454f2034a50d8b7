// HTML of the fixture website. Texts that tests assert on are exported in FIXTURE_TEXT so a test
// never repeats a literal that could drift from the page.

export const FIXTURE_TEXT = {
  articleTitle: 'Understanding Queue Back-pressure',
  articleLead: 'Back-pressure keeps a fast producer from drowning a slow consumer.',
  articleCode: 'const queue = createQueue({ maxInFlight: 32 });',
  navText: 'Site navigation home',
  sidebarText: 'Related reading in the sidebar',
  footerText: 'Copyright Fixture Corp footer',
  cookieText: 'We use cookies to improve this fixture',
  metaTitle: 'Metadata Rich Page',
  metaDescription: 'A page that carries every kind of metadata a scraper should report.',
  metaKeywords: 'scraping, metadata, fixtures',
  metaLanguage: 'en-GB',
  ogLocaleAlternates: ['fr_FR', 'de_DE'],
  scriptRendered: 'This paragraph was rendered by a script',
  latin1Text: 'Café crème, Größe, naïve façade',
  pdfPages: [
    ['Fixture PDF page one', 'The quick brown fox jumps over the lazy dog.'],
    ['Fixture PDF page two', 'Pack my box with five dozen liquor jugs.'],
  ],
  pdfTitle: 'Fixture PDF',
  notFound: 'This page does not exist',
  serverError: 'Something broke on the fixture server',
  slowText: 'Finally, the slow page',
} as const;

/** A real 1x1 PNG, served as a file and inlined as a data: URI. */
export const PIXEL_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

export const SITE_TREE = ['/docs', '/docs/a', '/docs/b', '/blog', '/blog/first-post', '/blog/second-post'];

function layout(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;
}

const T = FIXTURE_TEXT;

export function homePage(): string {
  return layout(
    'Fixture Site',
    `<h1>Fixture Site</h1>
<ul>
  <li><a href="/article">Article</a></li>
  <li><a href="/meta">Metadata page</a></li>
  <li><a href="/docs">Documentation</a></li>
  <li><a href="/blog">Blog</a></li>
</ul>`,
  );
}

export function articlePage(): string {
  return layout(
    T.articleTitle,
    `<div id="cookie-banner" class="cookie-banner" role="dialog"><p>${T.cookieText}.</p><button>Accept</button></div>
<header class="site-header"><a href="/" class="logo">Fixture Corp</a>
  <nav aria-label="main"><span>${T.navText}</span>
    <a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a>
  </nav>
</header>
<div class="layout">
<aside class="sidebar"><h3>${T.sidebarText}</h3><ul><li><a href="/blog/first-post">First post</a></li></ul></aside>
<main>
<article>
  <h1>${T.articleTitle}</h1>
  <p class="lead">${T.articleLead}</p>
  <h2>Why it matters</h2>
  <p>Without it, memory grows until the process dies. See <a href="docs/a">the docs</a>,
     <a href="./docs/b">the second doc</a> and <a href="/blog/second-post#comments">a blog post</a>.</p>
  <img src="images/pixel.png" alt="Diagram of a queue">
  <img src="data:image/png;base64,${PIXEL_PNG_BASE64}" alt="Inline pixel">
  <h2>Measured limits</h2>
  <table>
    <thead><tr><th>Strategy</th><th>Max in flight</th><th>Latency p99 (ms)</th></tr></thead>
    <tbody>
      <tr><td>Unbounded</td><td>∞</td><td>4200</td></tr>
      <tr><td>Fixed window</td><td>32</td><td>180</td></tr>
      <tr><td>Adaptive</td><td>8–64</td><td>95</td></tr>
    </tbody>
  </table>
  <h3>Code</h3>
  <pre><code class="language-typescript">${T.articleCode}
await queue.push(job);</code></pre>
  <h3>Checklist</h3>
  <ul>
    <li>Measure
      <ul>
        <li>queue depth</li>
        <li>consumer lag
          <ol><li>p50</li><li>p99</li></ol>
        </li>
      </ul>
    </li>
    <li>Limit in-flight work</li>
  </ul>
  <p>External reference: <a href="https://example.com/reference">example.com</a>.
     Contact: <a href="mailto:ops@example.com">ops@example.com</a>.</p>
</article>
</main>
</div>
<footer class="site-footer"><p>${T.footerText} 2024</p><a href="/privacy">Privacy</a></footer>`,
    '<link rel="canonical" href="/article">',
  );
}

export function metaPage(base: string): string {
  return `<!DOCTYPE html>
<html lang="${T.metaLanguage}">
<head>
<meta charset="utf-8">
<title>${T.metaTitle}</title>
<meta name="description" content="${T.metaDescription}">
<meta name="keywords" content="${T.metaKeywords}">
<meta name="robots" content="index, follow">
<meta name="author" content="Fixture Author">
<meta property="og:title" content="OG ${T.metaTitle}">
<meta property="og:description" content="OG ${T.metaDescription}">
<meta property="og:type" content="article">
<meta property="og:url" content="${base}/meta">
<meta property="og:image" content="${base}/images/pixel.png">
<meta property="og:site_name" content="Fixture Site">
<meta property="og:locale" content="en_GB">
<meta property="og:locale:alternate" content="${T.ogLocaleAlternates[0]}">
<meta property="og:locale:alternate" content="${T.ogLocaleAlternates[1]}">
<meta name="twitter:card" content="summary">
<meta property="article:published_time" content="2024-05-01T10:00:00Z">
<link rel="icon" href="/favicon.ico">
<link rel="canonical" href="${base}/meta">
<link rel="alternate" hreflang="fr" href="${base}/meta?lang=fr">
</head>
<body><h1>${T.metaTitle}</h1><p>Body text of the metadata page.</p></body>
</html>
`;
}

const TREE_TITLES: Record<string, string> = {
  '/docs': 'Documentation index',
  '/docs/a': 'Doc A: getting started',
  '/docs/b': 'Doc B: configuration',
  '/blog': 'Blog index',
  '/blog/first-post': 'First post',
  '/blog/second-post': 'Second post',
};

const TREE_LINKS: Record<string, string[]> = {
  '/docs': ['/docs/a', '/docs/b', '/blog'],
  '/docs/a': ['/docs/b', '/docs', '/docs/a?ref=self', '/private/secret'],
  '/docs/b': ['/docs/a', '/blog/first-post', 'https://example.com/outside'],
  '/blog': ['/blog/first-post', '/blog/second-post', '/docs'],
  '/blog/first-post': ['/blog/second-post', '/blog', '#top'],
  '/blog/second-post': ['/blog/first-post', '/docs/a', 'mailto:blog@example.com'],
};

export function treePage(pathname: string): string | undefined {
  const title = TREE_TITLES[pathname];
  if (!title) return undefined;
  const links = TREE_LINKS[pathname].map((href) => `<li><a href="${href}">${href}</a></li>`).join('\n');
  return layout(title, `<h1>${title}</h1>\n<p>Content of ${pathname}.</p>\n<ul>\n${links}\n</ul>`);
}

export function privatePage(): string {
  return layout('Private', '<h1>Private area</h1><p>robots.txt disallows this page.</p>');
}

export function scriptRenderedPage(): string {
  return layout(
    'Script rendered',
    `<div id="root"></div>
<script>
  setTimeout(function () {
    document.getElementById('root').innerHTML =
      '<h1>Rendered</h1><p>${T.scriptRendered}.</p>';
  }, 50);
</script>`,
  );
}

export function latin1Page(): string {
  return `<!DOCTYPE html>
<html lang="fr"><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">
<title>Latin-1</title></head>
<body><h1>Encodage</h1><p>${T.latin1Text}</p></body></html>
`;
}

export function errorPage(status: 404 | 500): string {
  const text = status === 404 ? T.notFound : T.serverError;
  return layout(`${status}`, `<h1>Error ${status}</h1><p>${text}.</p>`);
}

export function slowPage(ms: number): string {
  return layout('Slow', `<h1>Slow</h1><p>${T.slowText} after ${ms} ms.</p>`);
}

/** ≥ 1 MB of varied, realistic paragraphs. */
export function largePage(minBytes = 1_100_000): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < minBytes; i++) {
    const p = `<section id="s${i}"><h2>Section ${i}</h2><p>Paragraph ${i}: streaming systems trade latency for throughput, and section ${i} explains how batching ${i % 17} items at a time changes the picture. <a href="/docs/a?section=${i}">More</a></p></section>\n`;
    parts.push(p);
    size += p.length;
  }
  return layout('Large page', `<h1>Large page</h1>\n${parts.join('')}`);
}

export function robotsTxt(base: string): string {
  return `User-agent: *\nDisallow: /private\n\nUser-agent: BadBot\nDisallow: /\n\nSitemap: ${base}/sitemap.xml\n`;
}

export function sitemap(base: string, paths: readonly string[]): string {
  const urls = paths
    .map((p) => `  <url><loc>${base}${p}</loc><lastmod>2024-05-01</lastmod></url>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${urls}
</urlset>
`;
}

export function sitemapIndex(base: string, sitemaps: readonly string[]): string {
  const entries = sitemaps.map((p) => `  <sitemap><loc>${base}${p}</loc></sitemap>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries}
</sitemapindex>
`;
}

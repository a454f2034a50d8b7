import { transformHtml } from '../transform';

const URL = 'https://news.example.com/2024/story.html';

function main(html: string, extra: { includeTags?: string[]; excludeTags?: string[] } = {}): string {
  return transformHtml(html, { url: URL, formats: new Set(['markdown']), ...extra }).markdown ?? '';
}

const PAGE = `<!doctype html><html><body>
<a class="skip-link" href="#content">Skip to content</a>
<div id="cookie-notice" class="cookie-banner"><p>We use cookies to improve things.</p><button>Accept</button></div>
<header class="site-header"><div class="logo">Example News</div>
  <nav><ul><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li></ul></nav></header>
<nav class="breadcrumbs"><a href="/">Home</a> / <a href="/2024">2024</a></nav>
<div class="content sidebar-wrapper">
  <article>
    <h1>Rivers rise after a week of rain</h1>
    <div class="share-buttons"><a href="https://facebook.com/share">Share on Facebook</a></div>
    <p>The river reached its highest level in forty years on Tuesday, officials said.</p>
    <p>Residents of the lower town were asked to move to higher ground as a precaution.</p>
    <aside class="pullquote-related">Related: <a href="/old">Floods of 1984</a></aside>
    <p>Engineers expect the water to fall by the weekend if the forecast holds.</p>
  </article>
  <aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Something else</a></li></ul></aside>
</div>
<section class="newsletter-signup"><h3>Get the briefing</h3><form><input type="email"><button>Subscribe</button></form></section>
<div role="dialog" class="modal"><p>Sign in to continue reading</p></div>
<footer><p>Copyright Example News</p><a href="/privacy">Privacy</a></footer>
</body></html>`;

describe('onlyMainContent', () => {
  it('drops nav, header, footer, aside, cookie banner, newsletter, share, breadcrumbs, skip links and dialogs', () => {
    const out = main(PAGE);
    expect(out).toBe(
      [
        '# Rivers rise after a week of rain',
        'The river reached its highest level in forty years on Tuesday, officials said.',
        'Residents of the lower town were asked to move to higher ground as a precaution.',
        'Engineers expect the water to fall by the weekend if the forecast holds.',
      ].join('\n\n'),
    );
  });

  it('keeps an <article> inside a wrapper whose class looks like a sidebar', () => {
    const html = `<body><div class="content sidebar-wrapper"><article><p>${'Main text. '.repeat(5)}</p></article></div>
      <aside><p>Side</p></aside></body>`;
    expect(main(html)).toBe('Main text. '.repeat(5).trim());
  });

  it('prefers <main> and role=main when they hold a real share of the page', () => {
    const html = `<body><div class="promo-strip">Big promo text that is not boilerplate by name</div>
      <div role="main"><h2>Docs</h2><p>${'Documentation body. '.repeat(10)}</p></div></body>`;
    expect(main(html)).toBe(`## Docs\n\n${'Documentation body. '.repeat(10).trim()}`);
  });

  it('does not narrow to a tiny <main>', () => {
    const html = `<body><main><p>Teaser</p></main><div class="story"><p>${'Long story text. '.repeat(30)}</p></div></body>`;
    // The content score picks the prose outside the tiny <main>; the one-word teaser is not content.
    expect(main(html)).toContain('Long story text.');
  });

  it('keeps the title h1 that sits just above the article', () => {
    const html = `<body><nav><a href="/">Home</a></nav><div class="post"><h1>The title</h1>
      <article><p>${'Body text here. '.repeat(10)}</p></article></div><footer>f</footer></body>`;
    expect(main(html)).toBe(`# The title\n\n${'Body text here. '.repeat(10).trim()}`);
  });

  it('keeps article headers/footers and section headers inside main content', () => {
    const html = `<body><main><article><header><h2>Byline title</h2><p>By Ann</p></header><p>Body</p></article></main></body>`;
    expect(main(html)).toBe('## Byline title\n\nBy Ann\n\nBody');
  });

  it('never empties a page whose only text sits in boilerplate-looking containers', () => {
    const html =
      '<body><nav><ul><li><a href="/a">Alpha</a></li><li><a href="/b">Beta</a></li></ul></nav></body>';
    expect(main(html)).toBe('- [Alpha](https://news.example.com/a)\n- [Beta](https://news.example.com/b)');
  });

  it('keeps everything when onlyMainContent is false', () => {
    const out = transformHtml(PAGE, {
      url: URL,
      formats: new Set(['markdown']),
      onlyMainContent: false,
    }).markdown;
    expect(out).toContain('Copyright Example News');
    expect(out).toContain('We use cookies');
    expect(out).toContain('Rivers rise');
  });
});

describe('content score', () => {
  const para = (n: number, word: string): string =>
    `<p>${`${word} sentence with enough words to read as prose, carrying the story on. `.repeat(n)}</p>`;

  it('keeps the story and drops the comment section, related links and a teaser list around it', () => {
    const html = `<body><div class="page"><div class="story-body">${para(2, 'Story')}${para(2, 'Story')}
      <p>Related: <a href="/other">Another story entirely about something else</a></p>${para(2, 'Story')}${para(2, 'Story')}</div>
      <div class="teasers"><ul>${'<li><a href="/t">Teaser headline that links away</a></li>'.repeat(6)}</ul></div>
      <section id="comments"><h3>3 Comments</h3><div class="comment-body">${para(4, 'Comment')}</div></section></div></body>`;
    const out = main(html);
    expect(out).toContain('Story sentence');
    expect(out).not.toContain('Related:');
    expect(out).not.toContain('Teaser headline');
    expect(out).not.toContain('Comment sentence');
  });

  it('keeps comments when the thread is the page (posts named comment, no other prose)', () => {
    const html = `<body><h1>Thread</h1><div class="thread">
      <div class="comment">${para(2, 'First')}</div><div class="comment">${para(2, 'Second')}</div></div></body>`;
    expect(main(html)).toContain('First sentence');
    expect(main(html)).toContain('Second sentence');
  });

  it('drops hidden elements, figure captions and articles nested in the article', () => {
    const html = `<body><article>${para(3, 'Body')}<figure><img src="/a.jpg" alt=""><figcaption>A caption</figcaption></figure>
      <div style="display: none"><p>Schema headline copy</p></div><div hidden><p>Hidden text</p></div>${para(2, 'Body')}
      <article class="card">${para(1, 'Teaser')}</article></article></body>`;
    const out = main(html);
    expect(out).toContain('Body sentence');
    for (const gone of ['A caption', 'Schema headline', 'Hidden text', 'Teaser sentence'])
      expect(out).not.toContain(gone);
  });

  it('merges sibling containers that both carry the text, and a lead paragraph above the body', () => {
    const html = `<body><div class="wrap"><div class="lead">${para(1, 'Lead')}</div><div class="part">${para(3, 'One')}</div>
      <div class="ad-slot"><a href="/ad">Ad</a></div><div class="part">${para(3, 'Two')}</div></div>
      <footer><p>${'Site footer text that is long enough to be prose. '.repeat(3)}</p></footer></body>`;
    const out = main(html);
    expect(out).toContain('Lead sentence');
    expect(out).toContain('One sentence');
    expect(out).toContain('Two sentence');
    expect(out).not.toContain('Site footer');
  });

  it('prefers an article over a longer list of linked teasers with summaries beside it', () => {
    const teaser = (i: number): string =>
      `<li><a href="/n${i}">Teaser headline number ${i} about another story</a> ${'Summary words of a teaser in a list of stories. '.repeat(2)}</li>`;
    const html = `<body><div class="breaking"><ul>${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(teaser).join('')}</ul></div>
      <div class="story">${para(3, 'Story')}${para(3, 'Story')}</div></body>`;
    const out = main(html);
    expect(out).toContain('Story sentence');
    expect(out).not.toContain('Summary words');
  });

  it('keeps a listing: each item title stays with its excerpt', () => {
    const html = `<body><ul class="posts">${[1, 2, 3, 4]
      .map((i) => `<li><h2><a href="/p${i}">Post title ${i}</a></h2>${para(1, `Excerpt${i}`)}</li>`)
      .join('')}</ul></body>`;
    const out = main(html);
    for (const i of [1, 2, 3, 4]) expect(out).toContain(`Post title ${i}`);
  });

  it('lets includeTags and excludeTags win over the score', () => {
    const html = `<body><div class="story">${para(3, 'Story')}</div><div id="comments">${para(1, 'Comment')}</div></body>`;
    expect(main(html, { includeTags: ['#comments'] })).toContain('Comment sentence');
    expect(main(html, { excludeTags: ['.story'] })).not.toContain('Story sentence');
  });
});

describe('includeTags / excludeTags', () => {
  const html = `<body><div id="intro"><p>Intro</p></div><div class="content"><p>Keep me</p><p class="ad">Buy now</p></div>
    <section><p>Section</p><span class="note">Note</span></section></body>`;

  it('keeps only elements matching tag, .class or #id selectors', () => {
    expect(main(html, { includeTags: ['#intro'] })).toBe('Intro');
    expect(main(html, { includeTags: ['.content'] })).toBe('Keep me');
    expect(main(html, { includeTags: ['section', '#intro'] })).toBe('Intro\n\nSection\n\nNote');
  });

  it('drops elements matching tag, .class or #id selectors', () => {
    expect(main(html, { excludeTags: ['section', '.ad', '#intro'] })).toBe('Keep me');
  });

  it('supports compound selectors, combinators and attribute selectors', () => {
    // Explicitly included elements survive the boilerplate filter (`.ad` would otherwise be dropped).
    expect(main(html, { includeTags: ['div.content > p'] })).toBe('Keep me\n\nBuy now');
    expect(main(html, { excludeTags: ['[class="ad"]', 'section span'] })).toBe('Intro\n\nKeep me\n\nSection');
  });

  it('rejects unsupported selectors', () => {
    expect(() => main(html, { includeTags: ['p:first-child'] })).toThrow('Unsupported CSS selector');
  });
});

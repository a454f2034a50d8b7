'use strict';
// Page bodies of the generated benchmark corpus; each kind mimics the markup of a common site type.
const c = require('./chrome');
const { svgIcon, base64Image } = require('./text');

const LANGS = ['python', 'js', 'typescript', 'bash', 'go', 'rust', 'json', 'yaml'];

function codeBlock(t) {
  const lang = t.pick(LANGS);
  const lines = Array.from(
    { length: t.int(4, 18) },
    () =>
      `<span class="hljs-keyword">${t.pick(['const', 'let', 'if', 'return', 'def', 'fn'])}</span> ${t.word()}_${t.word()} = <span class="hljs-string">&quot;${t.words(2)}&quot;</span>; <span class="hljs-comment">// ${t.words(3)} &lt;x&gt; &amp;&amp; y</span>`,
  );
  return `<div class="highlight highlight-source-${lang}"><pre><code class="language-${lang}">${lines.join('\n')}
</code></pre><button class="copy-btn">Copy</button></div>`;
}

function dataTable(t, rows = 8, withHead = true) {
  const cols = t.int(3, 6);
  const headRow = `<tr>${Array.from({ length: cols }, () => `<th>${t.title(1)}</th>`).join('')}</tr>`;
  const body = Array.from(
    { length: rows },
    () =>
      `<tr>${Array.from({ length: cols }, (_, i) => (i === 0 ? `<td><code>${t.word()}</code></td>` : `<td>${t.words(t.int(1, 4))} | ${t.int(1, 999)}</td>`)).join('')}</tr>`,
  ).join('\n');
  return withHead
    ? `<table class="table"><thead>${headRow}</thead><tbody>${body}</tbody></table>`
    : `<table class="table">${headRow.replace(/th>/g, 'td>')}${body}</table>`;
}

function list(t, depth = 0) {
  const tag = depth % 2 ? 'ol' : 'ul';
  const items = Array.from({ length: t.int(2, 5) }, () => {
    const nested = depth < 2 && t.rand() < 0.3 ? list(t, depth + 1) : '';
    return `<li>${t.sentence(4, 12)}${nested}</li>`;
  });
  return `<${tag}>${items.join('\n')}</${tag}>`;
}

function figure(t, { base64 = false } = {}) {
  const src = base64
    ? base64Image(t, t.int(2000, 20000))
    : `/wp-content/uploads/2024/0${t.int(1, 9)}/${t.slug()}.jpg`;
  return `<figure class="wp-block-image"><img src="${src}" alt="${t.words(4)}" loading="lazy" width="800" height="600" srcset="${base64 ? '' : `${src}?w=400 400w, ${src}?w=800 800w`}"><figcaption>${t.sentence()}</figcaption></figure>`;
}

function articleBody(t, sections, opts = {}) {
  const out = [];
  for (let s = 0; s < sections; s++) {
    out.push(`<h2 id="${t.slug(2)}">${t.title(4)}</h2>`);
    for (let p = 0; p < t.int(2, 5); p++) out.push(t.para(t.int(2, 6)));
    const r = t.rand();
    if (r < 0.2) out.push(list(t));
    else if (r < 0.3)
      out.push(`<blockquote><p>${t.sentence()} ${t.sentence()}</p><cite>${t.title(2)}</cite></blockquote>`);
    else if (r < 0.45) out.push(figure(t, opts));
    else if (r < 0.55 && opts.code) out.push(codeBlock(t));
    else if (r < 0.6) out.push(dataTable(t, t.int(3, 8), t.rand() < 0.5));
  }
  return out.join('\n');
}

function article(t, { sections = 8, base64 = false, scriptsKb, stylesKb } = {}) {
  const title = t.title(6);
  return `${c.head(t, { title, scriptsKb, stylesKb })}${c.cookieBanner(t)}${c.header(t)}
<div id="content" class="site-content"><div class="container content sidebar-wrapper">
<main id="primary" class="site-main">${c.breadcrumbs(t)}
<article class="post type-post hentry"><header class="entry-header"><h1 class="entry-title">${title}</h1>
<div class="entry-meta">By <a href="/author/${t.slug(1)}">${t.title(2)}</a> &middot; <time datetime="2024-05-01">May 1, 2024</time></div></header>
${c.share(t)}<div class="entry-content">${articleBody(t, sections, { base64, code: true })}</div>
<footer class="entry-footer">Tags: <a href="/tag/${t.slug(1)}">${t.word()}</a>, <a href="/tag/${t.slug(1)}">${t.word()}</a></footer></article>
${c.newsletter(t)}<section class="related-posts"><h3>Related</h3><ul>${Array.from({ length: 4 }, () => `<li><a href="/${t.slug()}">${t.title(5)}</a></li>`).join('')}</ul></section>
</main>${c.sidebar(t)}</div></div>${c.footer(t)}${c.tail(t)}`;
}

function docs(t, { sections = 10 } = {}) {
  const title = t.title(3);
  const toc = Array.from(
    { length: 30 },
    () =>
      `<li class="toctree-l1"><a class="reference internal" href="${t.slug()}.html">${t.title(3)}</a></li>`,
  ).join('');
  return `${c.head(t, { title, scriptsKb: 8 })}${c.header(t)}
<div class="wy-grid-for-nav"><nav class="wy-nav-side sidebar" data-toggle="wy-nav-shift"><ul>${toc}</ul></nav>
<div class="wy-nav-content"><div role="main" class="document" itemscope itemtype="http://schema.org/Article"><div itemprop="articleBody">
<h1>${title}<a class="headerlink" href="#${t.slug(1)}" title="Permalink">&para;</a></h1>
${Array.from({ length: sections }, () => `<section><h2>${t.title(3)}</h2>${t.para(3)}${codeBlock(t)}${t.para(2)}${dataTable(t, t.int(3, 10), true)}<div class="admonition note"><p class="admonition-title">Note</p>${t.para(1)}</div><dl class="field-list"><dt>${t.word()}</dt><dd>${t.sentence()}</dd><dt>${t.word()}</dt><dd>${t.sentence()}</dd></dl></section>`).join('\n')}
</div></div><footer><div role="contentinfo">&copy; Copyright 2024.</div></footer></div></div>${c.tail(t)}`;
}

function shop(t, { products = 48 } = {}) {
  const cards = Array.from({ length: products }, () => {
    const slug = t.slug();
    return `<li class="product-card" data-product-id="${t.int(1000, 99999)}" data-price="${t.int(5, 500)}">
<a href="/p/${slug}" class="product-link"><picture><source type="image/webp" srcset="https://cdn.shop.example/${slug}-320.webp 320w, https://cdn.shop.example/${slug}-640.webp 640w"><img src="https://cdn.shop.example/${slug}-320.jpg" alt="${t.title(3)}" loading="lazy"></picture>
<h3 class="product-title">${t.title(4)}</h3></a><div class="rating" aria-label="Rated ${t.int(1, 5)} out of 5">${svgIcon(t)}${svgIcon(t)}${svgIcon(t)} (${t.int(1, 900)})</div>
<div class="price"><span class="amount">&euro;${t.int(5, 500)},${t.int(10, 99)}</span> <del>&euro;${t.int(500, 900)},00</del></div>
<button class="add-to-cart" data-sku="${slug}">Add to cart</button></li>`;
  }).join('\n');
  const filters = Array.from(
    { length: 6 },
    () =>
      `<fieldset><legend>${t.title(1)}</legend>${Array.from({ length: 8 }, () => `<label><input type="checkbox" name="f" value="${t.word()}"> ${t.title(1)} (${t.int(1, 300)})</label>`).join('')}</fieldset>`,
  ).join('');
  return `${c.head(t, { title: t.title(3), scriptsKb: 60, stylesKb: 30 })}${c.cookieBanner(t)}${c.header(t)}${c.breadcrumbs(t)}
<div class="shop-layout"><aside class="filters sidebar">${filters}</aside><main class="catalog"><h1>${t.title(2)}</h1><p class="result-count">Showing 1&ndash;${products} of ${t.int(200, 900)} results</p>
<ul class="products grid">${cards}</ul><nav class="pagination">${Array.from({ length: 10 }, (_, i) => `<a href="?page=${i + 1}">${i + 1}</a>`).join(' ')}</nav></main></div>${c.newsletter(t)}${c.footer(t)}${c.tail(t)}`;
}

function news(t, { stories = 60 } = {}) {
  const teaser = () =>
    `<article class="story-card"><a href="/news/2024/${t.slug(4)}"><img src="https://img.news.example/${t.slug()}.jpg" alt="${t.words(5)}"><h3>${t.title(8)}</h3></a><p class="summary">${t.sentence()}</p><span class="byline">${t.title(2)} &middot; ${t.int(1, 59)} min ago</span></article>`;
  const ad = () =>
    `<div class="ad ad-leaderboard" id="ad-slot-${t.int(1, 99)}"><span>Advertisement</span><iframe src="https://ads.example/${t.slug()}"></iframe></div>`;
  const sections = Array.from(
    { length: 6 },
    () =>
      `<section class="section-front"><h2><a href="/${t.slug(1)}">${t.title(1)}</a></h2><div class="grid">${Array.from({ length: stories / 6 }, teaser).join('')}</div>${ad()}</section>`,
  ).join('\n');
  return `${c.head(t, { title: t.title(2), scriptsKb: 80, stylesKb: 40 })}${c.cookieBanner(t)}${c.header(t)}
<div class="breaking-news-ticker"><a href="/live">${t.title(6)}</a></div><main id="main-content">${sections}</main>${c.newsletter(t)}${c.footer(t)}${c.tail(t)}`;
}

function forum(t, { posts = 40 } = {}) {
  const post = (
    i,
  ) => `<article class="post" id="post-${i}" data-post-number="${i}"><div class="post-author"><img class="avatar" src="/avatars/${t.slug(1)}.png" alt=""><a href="/u/${t.slug(1)}" class="username">${t.word()}_${t.int(1, 999)}</a><span class="user-title">${t.title(2)}</span></div>
<div class="post-body">${t.para(t.int(1, 5))}${t.rand() < 0.3 ? `<blockquote class="quote"><p>${t.sentence()}</p></blockquote>` : ''}${t.rand() < 0.25 ? `<pre><code class="lang-${t.pick(LANGS)}">${t.words(12)}\n${t.words(8)}</code></pre>` : ''}</div>
<div class="post-actions"><button class="like">Like ${t.int(0, 40)}</button><button class="share">Share</button><a href="#post-${i}" class="permalink">#${i}</a></div><div class="signature">${t.sentence()}</div></article>`;
  return `${c.head(t, { title: t.title(7), scriptsKb: 40 })}${c.header(t)}${c.breadcrumbs(t)}
<div id="main-outlet" class="wrap"><h1 class="fancy-title">${t.title(7)}</h1><div class="topic-posts">${Array.from({ length: posts }, (_, i) => post(i + 1)).join('\n')}</div>
<div class="suggested-topics"><h3>Suggested topics</h3><table class="topic-list">${Array.from({ length: 8 }, () => `<tr><td><a href="/t/${t.slug()}">${t.title(6)}</a></td><td>${t.int(1, 99)}</td><td>${t.int(1, 30)}d</td></tr>`).join('')}</table></div></div>${c.footer(t)}${c.tail(t)}`;
}

function wiki(t, { sections = 20 } = {}) {
  const link = () =>
    `<a href="/wiki/${t.title(1)}_${t.title(1)}" title="${t.title(2)}">${t.words(t.int(1, 3))}</a>`;
  const p = () =>
    `<p>${Array.from({ length: t.int(3, 6) }, () => `${t.sentence()} ${link()} ${t.words(3)} ${link()}<sup class="reference"><a href="#cite_note-${t.int(1, 200)}">[${t.int(1, 200)}]</a></sup>.`).join(' ')}</p>`;
  const infobox = `<table class="infobox vcard"><tbody><tr><th colspan="2" class="infobox-above">${t.title(2)}</th></tr>${Array.from({ length: 12 }, () => `<tr><th scope="row">${t.title(1)}</th><td>${link()}, ${t.words(3)}</td></tr>`).join('')}</tbody></table>`;
  const refs = `<h2>References</h2><ol class="references">${Array.from({ length: 120 }, (_, i) => `<li id="cite_note-${i + 1}"><span class="reference-text"><a rel="nofollow" class="external text" href="https://source${i}.example.org/${t.slug()}">${t.title(5)}</a>. <i>${t.title(2)}</i>. Retrieved 2024.</span></li>`).join('')}</ol>`;
  return `${c.head(t, { title: t.title(2), scriptsKb: 10 })}<div id="mw-navigation"><nav id="p-navigation" class="vector-menu">${Array.from({ length: 40 }, link).join(' ')}</nav></div>
<div id="content" class="mw-body" role="main"><h1 id="firstHeading">${t.title(2)}</h1><div id="mw-content-text">${infobox}
${Array.from({ length: sections }, () => `<h2><span class="mw-headline">${t.title(3)}</span><span class="mw-editsection">[<a href="/edit">edit</a>]</span></h2>${p()}${p()}${t.rand() < 0.3 ? list(t) : ''}`).join('\n')}${refs}</div></div>
<div id="footer" role="contentinfo"><ul>${Array.from({ length: 20 }, () => `<li>${link()}</li>`).join('')}</ul></div>${c.tail(t)}`;
}

function legacy(t, { rows = 30 } = {}) {
  // Table layout, uppercase tags, unclosed <p>/<li>/<td>, <font>, <center>: 2000s-era markup.
  const body = Array.from(
    { length: rows },
    () =>
      `<TR><TD CLASS=cell><FONT SIZE=2><B>${t.title(2)}</B><BR>${t.sentence()}<P>${t.sentence()}<LI>${t.words(4)}<LI>${t.words(3)}</FONT><TD VALIGN=top>${t.int(1, 99)}`,
  ).join('\n');
  return `<HTML><HEAD><TITLE>${t.title(3)}</TITLE><META NAME="keywords" CONTENT="${t.words(5)}"></HEAD>
<BODY BGCOLOR=#FFFFFF><CENTER><TABLE WIDTH=760 BORDER=0><TR><TD COLSPAN=2><IMG SRC="/images/banner.gif" ALT="${t.title(2)}"></TD></TR>
<TR><TD WIDTH=150 VALIGN=top><A HREF="/index.html">Home</A><BR><A HREF="/links.html">Links</A><TD><H1>${t.title(3)}</H1><P>${t.sentence()}<P>${t.sentence()}
<TABLE BORDER=1>${body}</TABLE></TD></TR></TABLE></CENTER><P>&copy; 2001 ${t.title(1)}</BODY></HTML>`;
}

module.exports = { article, docs, shop, news, forum, wiki, legacy };

'use strict';
// Site chrome shared by the generated pages: head, header/nav, cookie banner, sidebar, footer.
const { svgIcon, scriptBlob, styleBlob } = require('./text');

function head(t, { title, lang = 'en', scriptsKb = 20, stylesKb = 15 }) {
  return `<!DOCTYPE html>
<html lang="${lang}" class="no-js theme-light"><head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} | ${t.title(2)}</title>
<meta name="description" content="${t.sentence()}">
<meta name="keywords" content="${t.words(6).split(' ').join(', ')}">
<meta name="robots" content="index, follow">
<meta property="og:title" content="${title}"><meta property="og:type" content="article">
<meta property="og:url" content="https://www.example.com/${t.slug()}"><meta property="og:image" content="https://cdn.example.com/img/${t.slug()}.jpg">
<meta property="og:locale" content="en_US"><meta property="og:locale:alternate" content="fr_FR"><meta property="og:locale:alternate" content="de_DE">
<meta property="og:site_name" content="Example"><meta name="twitter:card" content="summary_large_image">
<meta property="article:published_time" content="2024-0${t.int(1, 9)}-1${t.int(0, 9)}T10:00:00Z"><meta name="dc.creator" content="${t.title(2)}">
<link rel="icon" href="/favicon.ico"><link rel="apple-touch-icon" href="/apple-touch-icon.png">
<link rel="canonical" href="https://www.example.com/${t.slug()}"><link rel="stylesheet" href="/static/css/main.${t.int(1000, 9999)}.css">
${styleBlob(t, stylesKb)}
<script async src="https://www.googletagmanager.com/gtag/js?id=G-${t.int(100000, 999999)}"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());</script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"${title}"}</script>
</head>
<body class="page page-${t.slug(1)} has-sidebar">
<a class="skip-link screen-reader-text" href="#content">Skip to content</a>
${scriptBlob(t, scriptsKb)}`;
}

function header(t) {
  const menu = Array.from({ length: 8 }, () => {
    const sub = Array.from(
      { length: t.int(4, 10) },
      () =>
        `<li class="menu-item"><a href="/${t.slug()}/${t.slug(2)}" data-track="nav">${t.title(2)}</a></li>`,
    ).join('');
    return `<li class="menu-item has-children"><a href="/${t.slug(1)}">${t.title(1)}</a><ul class="sub-menu">${sub}</ul></li>`;
  }).join('\n');
  return `<header id="masthead" class="site-header" role="banner">
<div class="header-inner"><a class="logo" href="/">${svgIcon(t)}<span>Example</span></a>
<nav class="main-navigation" aria-label="Primary"><ul class="menu">${menu}</ul></nav>
<form role="search" class="search-form" action="/search"><input type="search" name="q" placeholder="Search"><button type="submit">${svgIcon(t)}Search</button></form>
</div></header>`;
}

function cookieBanner(t) {
  return `<div id="cookie-consent" class="cookie-banner" role="dialog" aria-modal="true" aria-label="Cookie consent">
<p>${t.sentence()} ${t.sentence()} <a href="/privacy">Privacy policy</a></p>
<button class="btn accept">Accept all</button><button class="btn reject">Reject</button></div>`;
}

function breadcrumbs(t) {
  return `<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="/">Home</a></li><li><a href="/${t.slug(1)}">${t.title(1)}</a></li><li aria-current="page">${t.title(3)}</li></ol></nav>`;
}

function share(t) {
  const nets = ['facebook', 'twitter', 'linkedin', 'reddit', 'email'];
  return `<div class="share-buttons social-share"><span>Share:</span>${nets
    .map(
      (n) =>
        `<a class="share-${n}" href="https://${n}.com/share?u=https%3A%2F%2Fwww.example.com%2F${t.slug()}">${svgIcon(t)}<span class="sr-only">${n}</span></a>`,
    )
    .join('')}</div>`;
}

function newsletter(t) {
  return `<section class="newsletter-signup"><h3>Subscribe to our newsletter</h3><p>${t.sentence()}</p>
<form action="/subscribe" method="post"><label>Email <input type="email" name="email"></label><button>Subscribe</button></form></section>`;
}

function sidebar(t) {
  const widgets = Array.from(
    { length: 3 },
    () =>
      `<section class="widget"><h3 class="widget-title">${t.title(2)}</h3><ul>${Array.from(
        { length: 6 },
        () =>
          `<li><a href="/${t.slug()}">${t.title(4)}</a> <span class="count">(${t.int(1, 99)})</span></li>`,
      ).join('')}</ul></section>`,
  ).join('');
  return `<aside id="secondary" class="sidebar widget-area" role="complementary">${widgets}
<div class="ad-slot ad-300x250" data-ad-unit="/1234/sidebar"><ins class="adsbygoogle" data-ad-client="ca-pub-1"></ins></div></aside>`;
}

function footer(t) {
  const cols = Array.from(
    { length: 4 },
    () =>
      `<div class="footer-col"><h4>${t.title(1)}</h4><ul>${Array.from(
        { length: 8 },
        () => `<li><a href="/${t.slug(2)}">${t.title(2)}</a></li>`,
      ).join('')}</ul></div>`,
  ).join('');
  return `<footer id="colophon" class="site-footer" role="contentinfo"><div class="footer-widgets">${cols}</div>
<div class="site-info">&copy; 2024 Example Inc. All rights reserved. <a href="/terms">Terms</a> &middot; <a href="/privacy">Privacy</a></div></footer>`;
}

function tail(t) {
  return `<script src="/static/js/vendor.${t.int(1000, 9999)}.js" defer></script>
<script>(function(){var s=document.createElement("script");s.src="/x.js";document.body.appendChild(s)})();</script>
</body></html>`;
}

module.exports = { head, header, cookieBanner, breadcrumbs, share, newsletter, sidebar, footer, tail };

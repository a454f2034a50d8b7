'use strict';
// The benchmark corpus: realistic pages generated deterministically at run time (nothing committed).
const { rng, makeText } = require('./text');
const pages = require('./pages');

const SPECS = [
  ['blog-article-small', pages.article, { sections: 5 }],
  ['blog-article', pages.article, { sections: 10 }],
  ['blog-article-long', pages.article, { sections: 24 }],
  ['magazine-article', pages.article, { sections: 16 }],
  ['article-base64-images', pages.article, { sections: 8, base64: true }],
  ['article-base64-heavy', pages.article, { sections: 20, base64: true }],
  ['docs-page-small', pages.docs, { sections: 4 }],
  ['docs-page', pages.docs, { sections: 10 }],
  ['docs-reference', pages.docs, { sections: 24 }],
  ['shop-listing', pages.shop, { products: 24 }],
  ['shop-listing-large', pages.shop, { products: 72 }],
  ['news-front', pages.news, { stories: 48 }],
  ['news-front-large', pages.news, { stories: 120 }],
  ['forum-thread-short', pages.forum, { posts: 12 }],
  ['forum-thread', pages.forum, { posts: 40 }],
  ['forum-thread-long', pages.forum, { posts: 120 }],
  ['wiki-page', pages.wiki, { sections: 14 }],
  ['wiki-page-long', pages.wiki, { sections: 45 }],
  ['legacy-table-layout', pages.legacy, { rows: 40 }],
  ['legacy-table-layout-small', pages.legacy, { rows: 10 }],
  ['long-page-2mb', pages.article, { sections: 1000 }],
];

/** @returns {{name: string, url: string, html: string}[]} */
function generateCorpus() {
  return SPECS.map(([name, make, opts], i) => {
    const t = makeText(rng(1000 + i));
    return { name, url: `https://www.example.com/${name}/index.html`, html: make(t, opts) };
  });
}

module.exports = { generateCorpus };

if (require.main === module) {
  let total = 0;
  for (const p of generateCorpus()) {
    total += Buffer.byteLength(p.html);
    process.stdout.write(`${p.name.padEnd(28)} ${(Buffer.byteLength(p.html) / 1024).toFixed(1)} KB\n`);
  }
  process.stdout.write(`total ${(total / 1048576).toFixed(2)} MB\n`);
}

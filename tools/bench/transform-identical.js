'use strict';
// Output identity check for speed work on libs/transform: the current build and a baseline build
// (e.g. a copy of libs/transform/dist taken on main before the change) must give byte-identical
// results (markdown, html, links, images, metadata) on
//  - 250 generated pages (10 page kinds x 25 seeds) plus the transform bench corpus,
//  - the Article Extraction Benchmark pages when present (AEB_DIR, default
//    /work/shared/data/article-extraction-benchmark),
//  - RANDOM_DOCS (default 20,000) random small documents built from tricky fragments (double spaces,
//    nbsp, <br>, nested emphasis, links with odd hrefs, block syntax at line starts, entities),
// each under several option sets. Exit 1 on any difference (the first few are printed).
// Run: npx tsc -b libs/transform/tsconfig.build.json && node tools/bench/transform-identical.js <baseline dist>
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { rng, makeText } = require('./corpus/text');
const pages = require('./corpus/pages');
const { generateCorpus } = require('./corpus');

const baselineDir = process.argv[2];
if (!baselineDir) {
  process.stderr.write('usage: node tools/bench/transform-identical.js <baseline libs/transform dist>\n');
  process.exit(64);
}
const base = require(path.resolve(baselineDir)).transformHtml;
const { transformHtml: ours } = require('@wds/transform');

const ALL = ['markdown', 'html', 'rawHtml', 'links', 'images', 'metadata'];
const PAGE_OPTIONS = [
  { formats: new Set(['markdown', 'links', 'metadata']), onlyMainContent: true },
  { formats: new Set(['markdown', 'links', 'metadata']), onlyMainContent: false },
  { formats: new Set(ALL) },
  { formats: new Set(ALL), onlyMainContent: false, removeBase64Images: false },
  {
    formats: new Set(['markdown', 'html']),
    includeTags: ['article', '.content', 'main'],
    excludeTags: ['nav', '.ad', 'footer'],
  },
  { formats: new Set(['markdown']), onlyMainContent: true, excludeTags: ['table'] },
];

let compared = 0;
let differ = 0;
function check(name, html, url, options) {
  for (let k = 0; k < options.length; k++) {
    const a = JSON.stringify(base(html, { url, ...options[k] }));
    const b = JSON.stringify(ours(html, { url, ...options[k] }));
    compared++;
    if (a !== b && ++differ <= 5) {
      process.stdout.write(
        `DIFF ${name} option set ${k}\n  baseline ${a.slice(0, 300)}\n  ours     ${b.slice(0, 300)}\n`,
      );
    }
  }
}

const KINDS = [
  ['article', pages.article, { sections: 5 }],
  ['article10', pages.article, { sections: 10 }],
  ['article-b64', pages.article, { sections: 8, base64: true }],
  ['docs', pages.docs, { sections: 6 }],
  ['shop', pages.shop, { products: 24 }],
  ['news', pages.news, { stories: 30 }],
  ['forum', pages.forum, { posts: 20 }],
  ['wiki', pages.wiki, { sections: 14 }],
  ['legacy', pages.legacy, { rows: 20 }],
  ['long', pages.article, { sections: 200 }],
];
let pageCount = 0;
for (let s = 0; s < 25; s++) {
  KINDS.forEach(([name, make, opts], i) => {
    const html = make(makeText(rng(1000 + s * 37 + i)), opts);
    check(`${name}-${s}`, html, `https://www.example.com/${name}/${s}/index.html`, PAGE_OPTIONS);
    pageCount++;
  });
}
for (const p of generateCorpus()) {
  check(p.name, p.html, p.url, PAGE_OPTIONS);
  pageCount++;
}
const aeb = process.env.AEB_DIR ?? '/work/shared/data/article-extraction-benchmark';
if (fs.existsSync(path.join(aeb, 'html'))) {
  for (const f of fs.readdirSync(path.join(aeb, 'html'))) {
    const buf = zlib.gunzipSync(fs.readFileSync(path.join(aeb, 'html', f)));
    const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)/i.exec(buf.subarray(0, 4096).toString('latin1'));
    let html;
    try {
      html = new TextDecoder(m ? m[1] : 'utf-8').decode(buf);
    } catch {
      html = new TextDecoder('utf-8').decode(buf);
    }
    check(f, html, `https://aeb.example.org/${f}`, PAGE_OPTIONS);
    pageCount++;
  }
}

// Random small documents.
let seed = 1;
const rnd = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 4294967296;
};
const pick = (a) => a[Math.floor(rnd() * a.length)];
const TEXT = [
  ' ',
  '  ',
  '\n',
  '\t',
  'word',
  'two  spaces',
  ' lead',
  'trail ',
  '&nbsp;',
  '&amp;',
  '&ldquo;q&rdquo;',
  '# hash',
  '1. one',
  '- dash',
  '+ plus',
  '= eq',
  '> gt',
  'a_b',
  '_u_',
  '*star*',
  '`tick`',
  '[br]',
  '<',
  '\\',
  'x\u00a0y',
  '\u2003em',
  'ünï',
  '中文',
  '\u0001',
  '   ',
  ' \n ',
];
const INLINE = ['strong', 'em', 'b', 'i', 'span', 'code', 'a', 'del', 'small', 'kbd'];
const BLOCK = [
  'p',
  'div',
  'li',
  'ul',
  'ol',
  'blockquote',
  'h2',
  'h1',
  'pre',
  'section',
  'td',
  'table',
  'tr',
  'dl',
  'dd',
  'dt',
  'article',
  'main',
];
const HREF = [
  '/x',
  'https://e.com/a b',
  'mailto:a  b',
  '#frag',
  'javascript:void(0)',
  ' /sp ',
  'http://x.org/(p)',
  '',
  'data:text/plain,a  b',
  'https://e.com/a  b',
];
function fragment(depth) {
  const r = rnd();
  if (depth > 4 || r < 0.35) return pick(TEXT);
  if (r < 0.45) return '<br>';
  if (r < 0.5) {
    const title = rnd() < 0.3 ? ` title="${pick(TEXT)}"` : '';
    return `<img src="${pick(HREF)}" alt="${pick(TEXT)}"${title}>`;
  }
  const kids = () =>
    Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => fragment(depth + 1)).join(rnd() < 0.3 ? ' ' : '');
  if (r < 0.8) {
    const t = pick(INLINE);
    if (t === 'a') return `<a href="${pick(HREF)}"${rnd() < 0.2 ? ' title="t  t"' : ''}>${kids()}</a>`;
    return `<${t}>${kids()}</${t}>`;
  }
  const t = pick(BLOCK);
  return `<${t}>${kids()}</${t}>`;
}
const DOC_OPTIONS = [
  { formats: new Set(['markdown', 'links']), onlyMainContent: false },
  { formats: new Set(['markdown']), onlyMainContent: true },
];
const RANDOM = Number(process.env.RANDOM_DOCS ?? 20000);
for (let k = 0; k < RANDOM; k++) {
  const body = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => fragment(0)).join(
    pick(['', '\n', ' ']),
  );
  check(`random-${k}`, `<html><body>${body}</body></html>`, 'https://h.example/p/q', DOC_OPTIONS);
}

process.stdout.write(
  `${pageCount} pages x ${PAGE_OPTIONS.length} option sets and ${RANDOM} random documents x ${DOC_OPTIONS.length}: ` +
    `${compared} outputs compared, ${differ} differ\n`,
);
process.exitCode = differ === 0 ? 0 : 1;

'use strict';
// Held-out check of onlyMainContent on page types other than news articles (docs, forum, product,
// service, listing, help centre): hand-written pages in this folder mark what a reader wants with
// `data-expect`. Expected text = the marked elements (includeTags, no heuristics); predicted = the
// onlyMainContent markdown; both made plain and scored like the Article Extraction Benchmark.
// Used by the main-content benchmark (every iteration) and by main-content.held-out.spec.ts (npm test).
const fs = require('node:fs');
const path = require('node:path');

function runHeldOut(transform, dir = __dirname) {
  const { transformHtml, markdownToPlain, matchCounts, precision, recall, aggregate } = transform;
  const formats = new Set(['markdown']);
  const pages = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.html'))
    .sort()
    .map((file) => {
      const html = fs.readFileSync(path.join(dir, file), 'utf8');
      const url = `https://held-out.example/${file}`;
      const expected = markdownToPlain(
        transformHtml(html, { url, formats, onlyMainContent: false, includeTags: ['[data-expect]'] }).markdown,
      );
      const predicted = markdownToPlain(transformHtml(html, { url, formats, onlyMainContent: true }).markdown);
      const counts = matchCounts(expected, predicted);
      return { file, expected, predicted, counts, precision: precision(counts), recall: recall(counts) };
    });
  return { pages, overall: aggregate(pages.map((p) => p.counts)) };
}

module.exports = { runHeldOut };

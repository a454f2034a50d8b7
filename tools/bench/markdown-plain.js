'use strict';
// Markdown -> plain text for scoring extractors by their text only: link targets, image references,
// heading/emphasis/list/quote marks, table pipes and separator rows, code fences and backslash
// escapes are taken out, so that neither URLs nor markup count for or against a system.

function markdownToPlain(md) {
  const out = [];
  for (let line of md.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) continue; // code fences
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line)) continue; // table separator row
    if (/^\s*([-*_]\s*){3,}$/.test(line)) continue; // horizontal rule
    line = line
      .replace(/!\[((?:\\.|[^\]\\])*)\]\((?:<[^>]*>|[^()\s]*(?:\([^()]*\)[^()\s]*)*)(?:\s+"[^"]*")?\)/g, '')
      .replace(/\[((?:\\.|[^\]\\])*)\]\((?:<[^>]*>|[^()\s]*(?:\([^()]*\)[^()\s]*)*)(?:\s+"[^"]*")?\)/g, '$1')
      .replace(/^\s*#{1,6}\s+/, '')
      .replace(/^(\s*>)+\s?/, '')
      .replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, '')
      .replace(/^\s*:\s+/, '')
      .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, '$2')
      .replace(/(^|[^\w*\\])[*_](?=\S)([^*_]*?\S)[*_](?!\w)/g, '$1$2')
      .replace(/`+/g, '')
      .replace(/\s*\|\s*/g, ' ')
      .replace(/\\([\\`*_{}[\]()#+\-.!|<>~=])/g, '$1');
    out.push(line.trim());
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

module.exports = { markdownToPlain };

'use strict';
// Deterministic text/markup helpers for the generated benchmark corpus (no committed fixtures).

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the of and to in is that for it as with was on be by this are at from or an have not which but ' +
  'data system service request response server client network page content browser cache query index ' +
  'performance latency throughput memory process thread queue worker cluster node storage database ' +
  'table column value record stream event message schema version release update feature support user ' +
  'account product price order shipping delivery review rating customer market report analysis city ' +
  'government policy election economy climate energy research study university science health team ' +
  'season match player league coach history culture music film author book article section chapter ' +
  'method function parameter option configuration default example result error exception handler ' +
  'community discussion thread reply question answer solution problem issue workaround upgrade install'
).split(' ');

function makeText(rand) {
  const word = () => WORDS[Math.floor(rand() * WORDS.length)];
  const sentence = (min = 8, max = 22) => {
    const n = min + Math.floor(rand() * (max - min));
    const w = [];
    for (let i = 0; i < n; i++) w.push(word());
    let s = w.join(' ');
    s = s[0].toUpperCase() + s.slice(1);
    return s + (rand() < 0.1 ? '?' : '.');
  };
  const words = (n) => Array.from({ length: n }, word).join(' ');
  const title = (n = 5) =>
    Array.from({ length: n }, () => {
      const w = word();
      return w[0].toUpperCase() + w.slice(1);
    }).join(' ');
  const slug = (n = 3) => Array.from({ length: n }, word).join('-');
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const int = (min, max) => min + Math.floor(rand() * (max - min + 1));
  /** Paragraph with inline links, emphasis, code and entities, like CMS output. */
  const para = (sentences = 4) => {
    const parts = [];
    for (let i = 0; i < sentences; i++) {
      let s = sentence();
      const r = rand();
      if (r < 0.25) s = s.replace(/ (\w+) (\w+)/, ` <a href="/${slug()}" class="inline-link">$1 $2</a>`);
      else if (r < 0.35) s = s.replace(/ (\w+)/, ' <strong>$1</strong>');
      else if (r < 0.45) s = s.replace(/ (\w+)/, ' <em>$1</em>');
      else if (r < 0.5) s = s.replace(/ (\w+)/, ' <code>$1()</code>');
      else if (r < 0.55) s = s.replace(/ (\w+)/, ' &ldquo;$1&rdquo; &amp;');
      parts.push(s);
    }
    return `<p>${parts.join(' ')}</p>`;
  };
  return { word, words, sentence, title, slug, pick, int, para, rand };
}

/** Inline SVG icon as sites embed them (skipped by the pipeline, but costs bytes). */
function svgIcon(t) {
  const d = Array.from(
    { length: 6 },
    () => `${t.int(0, 24)}.${t.int(0, 99)} ${t.int(0, 24)}.${t.int(0, 99)}`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" class="icon icon-${t.word()}"><path fill="currentColor" d="M${d.join(' L')} Z"/></svg>`;
}

/** A realistic inline script/JSON blob and stylesheet, the bulk of many modern pages. */
function scriptBlob(t, kb) {
  const items = [];
  let size = 0;
  while (size < kb * 1024) {
    const item = `{"id":${t.int(1, 99999)},"slug":"${t.slug()}","title":"${t.title()}","tags":["${t.word()}","${t.word()}"],"html":"<p>${t.sentence()}<\\/p>"}`;
    items.push(item);
    size += item.length;
  }
  return `<script>window.__NEXT_DATA__={"props":{"pageProps":{"items":[${items.join(',')}]}}};if(a<b&&c>d){console.log("</div>")}</script>`;
}

function styleBlob(t, kb) {
  const rules = [];
  let size = 0;
  while (size < kb * 1024) {
    const r = `.${t.slug(2)}-${t.int(1, 999)}{display:flex;margin:${t.int(0, 32)}px ${t.int(0, 32)}px;color:#${t.int(0x100000, 0xffffff).toString(16)}}`;
    rules.push(r);
    size += r.length;
  }
  return `<style>${rules.join('\n')}</style>`;
}

/** A small base64 PNG-like payload (not a valid image; the pipeline only sees a data: URL). */
function base64Image(t, bytes) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let s = 'iVBORw0KGgoAAAANSUhEUgAA';
  while (s.length < bytes) s += alphabet[t.int(0, 63)];
  return `data:image/png;base64,${s}`;
}

module.exports = { rng, makeText, svgIcon, scriptBlob, styleBlob, base64Image };

'use strict';
// Re-checks a recorded answer run (BENCH_DOCS_RECORD of tools/bench/docs-search.bench.js) offline:
// the model's raw replies are attributed again by the citation post-check with other second
// signals beside words, and citation precision is printed per question group for each, with the
// recorded (live) figure and two bounds. No model server is needed: the post-check is
// deterministic, the embedding model runs here.
//
//   WDS_DOCS_EMBEDDING_DIR=… node tools/bench/docs-search/recheck.js /path/to/record.json
//
// Rows:
//   - live: the evidence the run returned;
//   - words only: the post-check without a second signal;
//   - sentence cosine (shipped): each answer sentence's cosine with the passage's closest sentence;
//   - late interaction ×w: each answer sentence's MaxSim over the passage's token vectors (the
//     re-ordering's score), weight w instead of the cosine;
//   - both: the two signals added;
//   - bounds: "shown" cites an answering passage whenever one of the three was shown (the best any
//     attribution can do), "model" is the model's own citations.
const fs = require('node:fs');
const path = require('node:path');
const { Embedder } = require('../../../apps/docs-search/dist/index/embedder');
const { sentenceTexts, embeddingText } = require('../../../apps/docs-search/dist/index/build-index');
const { closest } = require('../../../apps/docs-search/dist/search/retriever');
const { citedAnswer } = require('../../../apps/docs-search/dist/answer/llm-answer-model');
const {
  attributedSentences,
  SIMILARITY_WEIGHT,
} = require('../../../apps/docs-search/dist/answer/citation-check');
const {
  citationPrecision,
  answersQuestion,
  questionGroup,
} = require('../../../apps/docs-search/dist/eval/evaluate');

const QUESTIONS = JSON.parse(fs.readFileSync(path.join(__dirname, 'questions.json'), 'utf8')).questions;
const say = (s) => process.stdout.write(`${s}\n`);

async function main() {
  const file = process.argv[2];
  if (!file) throw new Error('usage: recheck.js <record.json>');
  const records = JSON.parse(fs.readFileSync(file, 'utf8'));
  const dir = process.env.WDS_DOCS_EMBEDDING_DIR;
  if (!dir) throw new Error('WDS_DOCS_EMBEDDING_DIR names the embedding model');
  const embedder = await Embedder.load(dir);
  const byQ = new Map(QUESTIONS.map((q) => [q.q, q]));

  // Per record: the signals for each attributed sentence and passage shown.
  const items = [];
  const sentenceCache = new Map();
  for (const r of records) {
    const question = byQ.get(r.q);
    if (!question) throw new Error(`not in questions.json: ${r.q.slice(0, 60)}`);
    const retrieved = r.shown.map((p) => ({
      passage: p,
      score: 0,
      via: [],
      ...(p.focus ? { focus: p.focus } : {}),
    }));
    const item = { r, question, retrieved, cosine: undefined, maxsim: undefined };
    items.push(item);
    if (!r.raw || !r.raw.answer) continue;
    const texts = attributedSentences(String(r.raw.answer).trim(), r.q);
    if (!texts.length) continue;
    const vectors = await embedder.embed(texts, { urgent: true });
    const sentencesOf = [];
    for (const p of r.shown) {
      if (!sentenceCache.has(p.ref)) {
        const own = sentenceTexts(p);
        const vs = own.length ? await embedder.embed(own) : [];
        const flat = new Float32Array(vs.length * 384);
        vs.forEach((v, k) => flat.set(v, k * 384));
        sentenceCache.set(p.ref, flat);
      }
      sentencesOf.push(sentenceCache.get(p.ref));
    }
    item.cosine = new Map(
      texts.map((t, j) => [t, sentencesOf.map((s) => (s.length ? closest(vectors[j], s) : 0))]),
    );
    item.maxsim = new Map();
    for (const t of texts) item.maxsim.set(t, await embedder.lateInteraction(t, r.shown.map(embeddingText)));
  }
  await embedder.close();

  const scale = (m, w) =>
    m && new Map([...m].map(([t, v]) => [t, v.map((x) => (x * w) / SIMILARITY_WEIGHT)]));
  const add = (a, b) => a && b && new Map([...a].map(([t, v]) => [t, v.map((x, i) => x + b.get(t)[i])]));
  const variants = [
    ['live (recorded evidence)', (it) => it.r.evidence.map((e) => e.pathOrUrl)],
    ['words only', (it) => recheck(it, undefined)],
    ['sentence cosine ×0.5 (shipped)', (it) => recheck(it, it.cosine)],
    ...[0.25, 0.5, 1, 2].map((w) => [`late interaction ×${w}`, (it) => recheck(it, scale(it.maxsim, w))]),
    ...[0.5, 1].map((w) => [
      `cosine ×0.5 + late interaction ×${w}`,
      (it) => recheck(it, add(it.cosine, scale(it.maxsim, w))),
    ]),
    [
      'bound: an answering passage shown is cited',
      (it) => {
        const right = it.r.shown.find((p) => answersQuestion(p, it.question));
        return it.r.evidence.length ? [right ? right.ref : it.r.evidence[0].pathOrUrl] : [];
      },
    ],
    [
      "the model's own citations",
      (it) =>
        it.r.raw?.citations
          ? [...new Set(it.r.raw.citations.map((c) => it.r.shown[c.passage - 1]?.ref).filter(Boolean))]
          : it.r.evidence.map((e) => e.pathOrUrl),
    ],
  ];
  const groups = [...new Set(items.map((it) => questionGroup(it.question)))];
  say(`${items.length} answers from ${file}; groups ${groups.join(', ')}`);
  say(`| post-check | all | ${groups.join(' | ')} |`);
  say(`| --- | --- | ${groups.map(() => '---').join(' | ')} |`);
  for (const [name, cite] of variants) {
    const runs = items.map((it) => {
      const byRef = new Map(it.r.shown.map((p) => [p.ref, p]));
      return {
        question: it.question,
        cited: cite(it).map((ref) => byRef.get(ref) ?? { source: '', title: '', ref, body: '' }),
      };
    });
    const cell = (some) =>
      `${citationPrecision(some).toFixed(3)} (${some.reduce((n, x) => n + x.cited.length, 0)})`;
    say(
      `| ${name} | ${cell(runs)} | ${groups.map((g) => cell(runs.filter((x) => questionGroup(x.question) === g))).join(' | ')} |`,
    );
  }
  // How often an answering passage was among the three shown.
  const shown = items.filter((it) => it.r.shown.some((p) => answersQuestion(p, it.question))).length;
  say(`answering passage among those shown: ${shown} of ${items.length}`);
}

/** The evidence the shipped post-check returns for a recorded reply with `similarity` as its second signal. */
function recheck(it, similarity) {
  if (!it.r.raw || !it.r.raw.answer) return it.r.evidence.map((e) => e.pathOrUrl);
  const a = citedAnswer(it.r.raw, it.r.q, it.retrieved, similarity);
  return a.evidence.map((e) => e.pathOrUrl);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});

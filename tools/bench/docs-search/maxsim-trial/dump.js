// Session 27's MaxSim trial, step 1 (measurements.md "Session 27"): the shipped retriever's first 25
// passages for every question, with their text and whether each answers it, into /tmp/exp/top25.json.
// Build first (npx tsc -b tsconfig.build.json); needs the embedding model in ~/.cache/wds/models.
// Then: python3 -m venv V && V/bin/pip install onnxruntime tokenizers numpy && V/bin/python maxsim.py
const fs = require('node:fs'),
  os = require('node:os'),
  path = require('node:path');
const R = require('node:path').resolve(__dirname, '..', '..', '..', '..');
const { startPostgres } = require(R + '/libs/local-infra/dist');
const { Database, runMigrations } = require(R + '/libs/database/dist');
const { publishedPassages } = require(R + '/apps/docs-search/dist/docs-search.service');
const { buildIndex } = require(R + '/apps/docs-search/dist/index/build-index');
const { Embedder } = require(R + '/apps/docs-search/dist/index/embedder');
const { PassageStore } = require(R + '/apps/docs-search/dist/index/passage-store');
const { Retriever } = require(R + '/apps/docs-search/dist/search/retriever');
const { answersQuestion, questionGroup } = require(R + '/apps/docs-search/dist/eval/evaluate');
const Q = JSON.parse(fs.readFileSync(R + '/tools/bench/docs-search/questions.json', 'utf8')).questions;
(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-'));
  const pg = await startPostgres({ dataDir: path.join(dir, 'pg'), durable: false });
  const db = new Database({ url: pg.url });
  await runMigrations(db, { schema: 'docs_search', dir: R + '/apps/docs-search/migrations' });
  const store = new PassageStore(db);
  const embedder = await Embedder.load(
    process.env.WDS_DOCS_EMBEDDING_DIR || path.join(os.homedir(), '.cache/wds/models/all-MiniLM-L6-v2-int8'),
  );
  await buildIndex(store, publishedPassages(R), embedder);
  const r = new Retriever(store, embedder);
  await r.refresh();
  const out = [];
  for (const [i, q] of Q.entries()) {
    const got = await r.retrieve(q.q, 25);
    out.push({
      i: i + 1,
      q: q.q,
      group: questionGroup(q),
      cands: got.map((x) => ({
        ref: x.passage.ref,
        title: x.passage.title,
        body: x.passage.body,
        ok: answersQuestion(x.passage, q),
      })),
    });
  }
  fs.mkdirSync('/tmp/exp', { recursive: true });
  fs.writeFileSync('/tmp/exp/top25.json', JSON.stringify(out));
  console.log(
    'done',
    out.length,
    'recall@3',
    out.filter((x) => x.cands.slice(0, 3).some((c) => c.ok)).length / out.length,
    'any@25',
    out.filter((x) => x.cands.some((c) => c.ok)).length / out.length,
  );
  await embedder.close();
  await db.close();
  await pg.stop();
  process.exit(0);
})();

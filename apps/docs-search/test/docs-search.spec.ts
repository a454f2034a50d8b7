import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { ACTIVITY, DOCS_SEARCH_RPC, STREAMS, type ActivityBatch } from '@wds/contracts';
import { Database, runMigrations } from '@wds/database';
import { startNats, type RunningServer } from '@wds/local-infra';
import { bootstrapService, type RunningService } from '@wds/service-kit';
import { createTestDatabase, MODEL_SERVER_START_TIMEOUT_MS, startTestModelServer } from '@wds/testing';
import type { RunningModelServer } from '@wds/local-infra';
import { llmConfigFromEnv, OpenAiCompatibleLlm } from '@wds/llm';
import { NO_MODEL_WARNING, NOT_STATED_ANSWER } from '../src/answer/ask-docs.usecase';
import { LlmAnswerModel } from '../src/answer/llm-answer-model';
import { AppModule } from '../src/app.module';
import { DocsSearchConfig } from '../src/config';
import { findDocsRoot } from '../src/corpus/collect-sources';
import { DocsSearchService, publishedPassages } from '../src/docs-search.service';
import { buildIndex, sentenceTexts } from '../src/index/build-index';
import { dot, Embedder, EMBEDDING_DIMENSIONS } from '../src/index/embedder';
import { PassageStore } from '../src/index/passage-store';
import { answersQuestion, questionGroup, recallAt, type EvalQuestion } from '../src/eval/evaluate';
import { Retriever, type Retrieved } from '../src/search/retriever';

jest.setTimeout(600_000);

const MIGRATIONS = { schema: 'docs_search', dir: path.join(__dirname, '..', 'migrations') };
const REPO = findDocsRoot(__dirname)!;
const QUESTIONS: EvalQuestion[] = JSON.parse(
  fs.readFileSync(path.join(REPO, 'tools', 'bench', 'docs-search', 'questions.json'), 'utf8'),
).questions;

/** The embedding model `npm test` fetches from PyPI (tools/stack/lib/embedding-model.js). */
function embeddingDir(): string {
  const dir = process.env.WDS_DOCS_EMBEDDING_DIR;
  if (!dir || !fs.existsSync(path.join(dir, 'model.onnx'))) {
    throw new Error('WDS_DOCS_EMBEDDING_DIR must point at the embedding model (npm test provisions it)');
  }
  return dir;
}

/** A small published reference in a temp folder. */
function writeDocs(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

const SMALL_DOCS = {
  'README.md': '# Demo\n\nA demo platform.\n\n## Start\n\nRun `npm start` to start every service.\n',
  'docs/webhooks.md':
    '# Webhooks\n\nJobs notify your endpoint.\n\n## Retry schedule\n\nA failed delivery is retried after 30 s, 2 min and 10 min.\n\n## Signatures\n\nEvery delivery carries X-Service-Signature, an HMAC-SHA256 of the raw body.\n',
  'apps/demo/README.md':
    '# demo app\n\n## Environment\n\n| variable | default |\n|---|---|\n| `DEMO_PORT` | 3000 |\n',
  'node_modules/dep/README.md': '# never indexed\n\nDependency docs.\n',
};

describe('docs-search index (real PostgreSQL, all-MiniLM-L6-v2 on onnxruntime)', () => {
  let db: Database;
  let drop: () => Promise<void>;
  let store: PassageStore;
  let embedder: Embedder;

  beforeAll(async () => {
    const created = await createTestDatabase('docs');
    drop = created.drop;
    db = new Database({ url: created.url });
    await runMigrations(db, MIGRATIONS);
    store = new PassageStore(db);
    embedder = await Embedder.load(embeddingDir());
  });
  afterAll(async () => {
    await embedder?.close();
    await db?.close();
    await drop?.();
  });

  it('indexes the published docs once and afterwards re-indexes only what changed', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-docs-'));
    writeDocs(root, SMALL_DOCS);
    const passages = () => publishedPassages(root);
    const first = await buildIndex(store, passages(), embedder);
    const total = first.passages;
    expect(first).toMatchObject({ added: total, updated: 0, removed: 0, unchanged: 0, embedded: total });
    const stored = await store.vectors(embedder.modelId);
    const refs = stored.map((v) => v.ref);
    // Each passage also has one unit vector per sentence (list item, table row), back to back.
    const bodies = await store.get(refs);
    for (const v of stored) {
      const n = sentenceTexts(bodies.get(v.ref)!).length;
      expect(v.sentences.length).toBe(n * EMBEDDING_DIMENSIONS);
      for (let k = 0; k < n; k++) {
        const unit = v.sentences.subarray(k * EMBEDDING_DIMENSIONS, (k + 1) * EMBEDDING_DIMENSIONS);
        expect(dot(unit, unit)).toBeCloseTo(1, 3);
      }
    }
    expect(stored.filter((v) => v.sentences.length > 0).length).toBeGreaterThan(stored.length / 2);
    expect(refs).toEqual(
      expect.arrayContaining([
        'docs/webhooks.md#retry-schedule',
        'README.md#start',
        'openapi#/paths/~1v2~1crawl/post',
      ]),
    );
    expect(refs.some((r) => r.includes('node_modules'))).toBe(false);

    expect(await buildIndex(store, passages(), embedder)).toMatchObject({
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: total,
      embedded: 0,
    });

    // One section edited, one file gone: only those rows change.
    writeDocs(root, {
      'docs/webhooks.md': SMALL_DOCS['docs/webhooks.md'].replace('10 min', '10 min and 30 min'),
    });
    fs.rmSync(path.join(root, 'apps'), { recursive: true });
    const third = await buildIndex(store, passages(), embedder);
    expect(third).toMatchObject({ added: 0, updated: 1, removed: 1, embedded: 1, unchanged: total - 2 });
    expect(
      (await store.get(['docs/webhooks.md#retry-schedule'])).get('docs/webhooks.md#retry-schedule')?.body,
    ).toContain('30 min');

    // Text rows are kept whatever the model; vectors of another model are recomputed, not mixed in.
    expect(await buildIndex(store, passages(), undefined)).toMatchObject({
      unchanged: total - 1,
      embedded: 0,
    });
    expect(await store.countWithoutVector('another-model')).toBe(total - 1);
    expect(await store.countWithoutVector(embedder.modelId)).toBe(0);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('finds a passage that answers the question in the top 3 for 90% of the designed questions and 80% of all', async () => {
    await buildIndex(store, publishedPassages(REPO), embedder);
    const hybrid = new Retriever(store, embedder);
    await hybrid.refresh();
    expect(hybrid.hybrid).toBe(true);
    const textOnly = new Retriever(store, undefined);
    // One question at a time, as users ask them: 71 retrievals at once queued for the pool's few
    // PostgreSQL connections past their connect timeout on a loaded CI machine (503, not a miss).
    const run = async (r: Retriever) => {
      const out: { question: EvalQuestion; retrieved: Retrieved['passage'][] }[] = [];
      for (const question of QUESTIONS) {
        out.push({ question, retrieved: (await r.retrieve(question.q, 5)).map((x) => x.passage) });
      }
      return out;
    };
    const [h, t] = [await run(hybrid), await run(textOnly)];
    const misses = h
      .filter((x) => !x.retrieved.slice(0, 3).some((p) => answersQuestion(p, x.question)))
      .map((x) => x.question.q);
    // Printed for the record; the bench prints the full table.
    const designed = h.filter((x) => questionGroup(x.question) === 'designed');
    const held = h.filter((x) => x.question.heldOut);
    process.stdout.write(
      `recall@3 hybrid ${recallAt(3, h).toFixed(3)} (designed ${recallAt(3, designed).toFixed(3)}, held-out ${recallAt(3, held).toFixed(3)}), full text only ${recallAt(3, t).toFixed(3)}; misses: ${JSON.stringify(misses)}\n`,
    );
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(60);
    // The benchmark's target is 0.9 (npm run bench -- docs-search). The docs change with every
    // feature, so the suite guards against a regression of the ranking with some room: on the 71
    // questions it was designed on (0.986 when the guard was set) and over all 181, including the
    // 110 written later by four other authors in users' words (0.840 then; 0.70-0.80 per set).
    expect(recallAt(3, designed)).toBeGreaterThanOrEqual(0.9);
    expect(recallAt(3, h)).toBeGreaterThanOrEqual(0.8);
    // A cold index of the real docs embeds ~800 passages and ~5,900 sentences: ~11 ms of CPU per
    // sentence, several minutes of wall time when the suites share two cores with a model server.
  }, 1_200_000);

  it('scores passages by late interaction over token vectors, reading a long passage in windows', async () => {
    const question = 'How many times is a failed webhook delivery retried?';
    const answer = 'A failed webhook delivery is retried five times, with backoff, before it is given up.';
    // ~600 tokens of filler: the answer's sentence is past the model's 256-token input.
    const filler = Array.from(
      { length: 40 },
      (_, i) => `Section ${i} describes the colour of the dashboard theme and the layout of page ${i}.`,
    ).join(' ');
    const [same, short, unrelated, longWithAnswer, longWithout] = await embedder.lateInteraction(question, [
      question,
      answer,
      'The dashboard theme can be light or dark.',
      `${filler} ${answer}`,
      filler,
    ]);
    // The question against itself: every token's best match is its own vector.
    expect(same).toBeCloseTo(1, 3);
    expect(short).toBeGreaterThan(unrelated);
    expect(short).toBeLessThan(same);
    // Found in the third window, not cut off with the first 256 tokens.
    expect(longWithAnswer).toBeGreaterThan(longWithout + 0.05);
    // Kept token vectors give the same scores; a question of function words only still scores.
    const again = await embedder.lateInteraction(question, [`${filler} ${answer}`, answer]);
    expect(again[0]).toBeCloseTo(longWithAnswer, 5);
    expect(again[1]).toBeCloseTo(short, 5);
    const [bare] = await embedder.lateInteraction('how do I?', ['How do I?']);
    expect(bare).toBeCloseTo(1, 3);
    expect(await embedder.lateInteraction(question, [])).toEqual([]);
    // Alongside embedding work, both are answered.
    const [vectors, scores] = await Promise.all([
      embedder.embed([answer, filler]),
      embedder.lateInteraction(question, [answer]),
    ]);
    expect(vectors).toHaveLength(2);
    expect(scores[0]).toBeCloseTo(short, 5);
  });

  it("stores a passage's token vectors with its vector, from the same runs of the model, and scores them as its text", async () => {
    const filler = Array.from({ length: 40 }, (_, i) => `Row ${i} of the layout table is blue.`).join(' ');
    const texts = [
      'Webhooks\nA failed webhook delivery is retried five times.',
      `Layout\n${filler} A failed webhook delivery is retried five times.`,
      '',
    ];
    const { vectors, tokens } = await embedder.embedPassages(texts);
    // The passage's own vector is the one `embed` makes (its first window is the model's input).
    const plain = await embedder.embed(texts);
    vectors.forEach((v, i) => expect(dot(v, plain[i])).toBeGreaterThan(0.9999));
    // Per token a float32 scale and 384 int8 components; the long one read in several windows.
    tokens.forEach((t) => expect(t.byteLength % (EMBEDDING_DIMENSIONS + 4)).toBe(0));
    expect(tokens[1].byteLength / (EMBEDDING_DIMENSIONS + 4)).toBeGreaterThan(256);
    const question = 'How many times is a failed webhook delivery retried?';
    const fromText = await embedder.lateInteraction(question, texts);
    // Stored bytes, even as a view into a larger buffer (how node-postgres hands out bytea).
    const pooled = Buffer.alloc(tokens[1].byteLength + 17);
    pooled.set(tokens[1], 5);
    const fromTokens = await embedder.lateInteraction(question, [
      tokens[0],
      pooled.subarray(5, 5 + tokens[1].byteLength),
      tokens[2],
    ]);
    fromTokens.forEach((s, i) => expect(s).toBeCloseTo(fromText[i], 6));
    expect(fromTokens[0]).toBeGreaterThan(0.5);
    expect(fromTokens[2]).toBe(0);
    // Bytes that are not token vectors fail the call; the thread goes on serving.
    await expect(embedder.lateInteraction(question, [new Uint8Array(7)])).rejects.toThrow(/384-dimensional/);
    expect(await embedder.lateInteraction(question, [tokens[0]])).toEqual([fromTokens[0]]);
    // Once the question was embedded for the vector rankings, its token vectors come from that
    // run of the model: the same scores.
    await embedder.embed([question], { query: true, urgent: true });
    const afterEmbedding = await embedder.lateInteraction(question, tokens);
    afterEmbedding.forEach((s, i) => expect(s).toBeCloseTo(fromTokens[i], 5));
  });

  it('re-orders the first passages by late interaction, and only those', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rerank-'));
    writeDocs(root, {
      'README.md': '# Demo\n\nA demo platform.\n',
      'docs/a.md':
        '# Webhooks\n\n## Events\n\nWebhook events are sent for crawl pages and batch results; each is signed.\n',
      'docs/b.md':
        '# Webhooks\n\n## Delivery\n\nA failed webhook delivery is retried five times with backoff.\n',
      'docs/c.md':
        '# Crawl\n\n## Limits\n\nA crawl stops after its page limit; webhook events report each page.\n',
    });
    await buildIndex(
      store,
      publishedPassages(root).filter((p) => !p.ref.startsWith('openapi#')),
      embedder,
    );
    const question = 'How many times is a failed webhook delivery retried?';
    const plain = new Retriever(store, embedder, { rerankDepth: 0 });
    const reranked = new Retriever(store, embedder);
    const one = new Retriever(store, embedder, { rerankDepth: 1 });
    await Promise.all([plain.refresh(), reranked.refresh(), one.refresh()]);
    const [p, r, o] = await Promise.all([plain, reranked, one].map((x) => x.retrieve(question, 3)));
    expect(p.every((x) => !x.via.includes('rerank'))).toBe(true);
    expect(r.every((x) => x.via.includes('rerank'))).toBe(true);
    expect(r[0].passage.source).toBe('docs/b.md');
    // The same passages, each order a permutation of the other's; depth 1 changes nothing.
    expect(new Set(r.map((x) => x.passage.ref))).toEqual(new Set(p.map((x) => x.passage.ref)));
    expect(o.map((x) => x.passage.ref)).toEqual(p.map((x) => x.passage.ref));
    expect(o.map((x) => x.via.includes('rerank'))).toEqual([true, false, false]);
    // The stored token vectors are what it reads: unreadable ones leave the fused order as it is,
    // and a passage without them is read from its text, to the same order.
    const size = await store.tokenVectorSize(embedder.modelId);
    expect(size.passages).toBe(await store.count());
    expect(size.bytes).toBeGreaterThan(size.passages * (EMBEDDING_DIMENSIONS + 4) * 5);
    await db.query(
      `UPDATE docs_search.passages SET token_vectors = '\\x00'::bytea WHERE source = 'docs/b.md'`,
    );
    const broken = await reranked.retrieve(question, 3);
    expect(broken.map((x) => x.passage.ref)).toEqual(p.map((x) => x.passage.ref));
    expect(broken.some((x) => x.via.includes('rerank'))).toBe(false);
    await db.query(`UPDATE docs_search.passages SET token_vectors = NULL WHERE source = 'docs/b.md'`);
    expect((await reranked.retrieve(question, 3)).map((x) => x.passage.ref)).toEqual(
      r.map((x) => x.passage.ref),
    );
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("takes the pooling and the question prefix from the model folder's embedding.json", async () => {
    // The same model files with another recipe: [CLS] pooling and a question instruction.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-embedding-cls-'));
    for (const f of ['model.onnx', 'tokenizer.json', 'tokenizer_config.json'])
      fs.symlinkSync(path.join(embeddingDir(), f), path.join(dir, f));
    const prefix = 'Represent this sentence for searching relevant passages: ';
    fs.writeFileSync(
      path.join(dir, 'embedding.json'),
      JSON.stringify({ pooling: 'cls', queryPrefix: prefix }),
    );
    const cls = await Embedder.load(dir);
    try {
      const text = 'A failed delivery is retried after 30 s, 2 min and 10 min.';
      const [mean] = await embedder.embed([text]);
      const [pooled] = await cls.embed([text]);
      expect(dot(pooled, pooled)).toBeCloseTo(1, 3);
      expect(dot(mean, pooled)).toBeLessThan(0.99);
      // A question gets the prefix; a passage (and an answer sentence) does not.
      const [asQuestion] = await cls.embed([text], { query: true, urgent: true });
      const [prefixed] = await cls.embed([prefix + text]);
      expect(dot(asQuestion, prefixed)).toBeCloseTo(1, 4);
      expect(dot(asQuestion, pooled)).toBeLessThan(0.99);
      // Without embedding.json a question is embedded as it is, mean-pooled.
      const [meanQuestion] = await embedder.embed([text], { query: true });
      expect(dot(meanQuestion, mean)).toBeCloseTo(1, 4);
    } finally {
      await cls.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("puts embedding.json's passage prefix before passages and its query prefix before questions (e5-style models)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-embedding-e5-'));
    for (const f of ['model.onnx', 'tokenizer.json', 'tokenizer_config.json'])
      fs.symlinkSync(path.join(embeddingDir(), f), path.join(dir, f));
    fs.writeFileSync(
      path.join(dir, 'embedding.json'),
      JSON.stringify({ pooling: 'mean', queryPrefix: 'query: ', passagePrefix: 'passage: ' }),
    );
    const e5 = await Embedder.load(dir);
    try {
      const text = 'A failed delivery is retried after 30 s, 2 min and 10 min.';
      const [passage] = await e5.embed([text]);
      const [question] = await e5.embed([text], { query: true });
      const [passageByHand, questionByHand, bare] = await embedder.embed([
        `passage: ${text}`,
        `query: ${text}`,
        text,
      ]);
      expect(dot(passage, passageByHand)).toBeCloseTo(1, 4);
      expect(dot(question, questionByHand)).toBeCloseTo(1, 4);
      expect(dot(passage, bare)).toBeLessThan(0.999);
      expect(dot(passage, question)).toBeLessThan(0.999);
    } finally {
      await e5.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("matches a model's expected answer together with the question in the vector rankings, not in full text", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-expand-'));
    writeDocs(root, {
      'README.md': '# Demo\n\nA demo platform.\n',
      'docs/database.md':
        '# Database\n\n## Copies\n\nA copy of the database can be restored onto another server with pg_restore; our team keeps one copy a day.\n',
      'docs/login.md':
        '# Login\n\n## Sessions\n\nYou log in to the console with your team account; a session lasts eight hours.\n',
      'docs/credentials.md':
        '# Credentials\n\n## Storage\n\nOnly a SHA-256 digest of every credential is persisted; the secret itself is displayed a single time when it is issued.\n',
    });
    // Without the served OpenAPI document (always published): the case is about these sections.
    await buildIndex(
      store,
      publishedPassages(root).filter((p) => !p.ref.startsWith('openapi#')),
      embedder,
    );
    const retriever = new Retriever(store, embedder);
    await retriever.refresh();
    // No word of the question is in any passage: only the vector rankings find anything.
    const question = 'Could a thief with a stolen backup impersonate us?';
    // What a model writes when asked what the documentation would say (it has seen no passage).
    const expansion =
      'API keys are never stored in plain text: only a SHA-256 hash of each key is kept, and the key is shown once when it is created.';
    const alone = await retriever.retrieve(question, 3);
    const expanded = await retriever.retrieve(question, 3, expansion);
    expect(alone[0].passage.source).toBe('docs/database.md');
    expect(expanded[0].passage.source).toBe('docs/credentials.md');
    // The expansion's words ("SHA-256", "stored") are not searched in full text, where a model's
    // guess would outvote the question's own words: still found by the vectors alone.
    // (Late interaction then re-orders them: `rerank`, not a ranking that found them.)
    expect(expanded.map((r) => r.via.filter((v) => v !== 'rerank'))).toEqual(alone.map(() => ['vector']));
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('docs-search service over NATS', () => {
  let nats: RunningServer;
  let natsDir: string;
  let root: string;
  const started: { service: RunningService<DocsSearchConfig>; drop: () => Promise<void> }[] = [];

  const start = async (env: Record<string, string>, docsRoot = root) => {
    const db = await createTestDatabase('docs');
    const service = await bootstrapService({
      kind: 'docs-search',
      module: AppModule,
      configSchema: DocsSearchConfig,
      migrations: MIGRATIONS,
      env: {
        NATS_URL: nats.url,
        DATABASE_URL: db.url,
        LOG_LEVEL: 'fatal',
        HEALTH_HOST: '127.0.0.1',
        WDS_DOCS_ROOT: docsRoot,
        WDS_DOCS_EMBEDDING_DIR: embeddingDir(),
        ...env,
      },
    });
    started.push({ service, drop: db.drop });
    return service;
  };
  const ask = (service: RunningService<DocsSearchConfig>, question: string) =>
    service.messaging.request(
      DOCS_SEARCH_RPC.ask,
      {
        teamId: 'team-1',
        apiKey: 'key1',
        requestId: `req_${randomUUID()}`,
        question,
        deadline: Date.now() + 60_000,
      },
      { timeoutMs: 60_000 },
    );

  beforeAll(async () => {
    natsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-docs-nats-'));
    nats = await startNats({ dataDir: natsDir });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-docs-'));
    writeDocs(root, SMALL_DOCS);
  });
  afterEach(async () => {
    for (const s of started.splice(0)) {
      await s.service.stop();
      await s.drop();
    }
  });
  afterAll(async () => {
    await nats?.stop();
    fs.rmSync(natsDir, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('answers extractively, citing retrieved passages, when no language model is configured', async () => {
    const service = await start({});
    // It answers from the text index at once; the vectors follow in the background.
    await service.app.get(DocsSearchService).vectorsReady();
    expect(
      await service.app.get(PassageStore).countWithoutVector(service.app.get(Retriever).embedder!.modelId),
    ).toBe(0);
    const res = await ask(service, 'How often is a failed webhook delivery retried?');
    expect(res.warning).toBe(NO_MODEL_WARNING);
    expect(res.evidence[0]).toMatchObject({ pathOrUrl: 'docs/webhooks.md#retry-schedule' });
    expect(res.answer).toContain('retried after 30 s, 2 min and 10 min');
    expect(res.answer).toContain('[1]');
    expect(res.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(res.requestId).toMatch(/^req_/);
    expect(res.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('answers questions and health probes while a large index is embedded, its event loop mostly idle (the model runs in its own thread)', async () => {
    // 400 passages of ~700 characters: tens of seconds of embedding even on an idle machine.
    const bigRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-docs-big-'));
    writeDocs(bigRoot, SMALL_DOCS);
    const filler = (f: number, s: number) =>
      Array.from(
        { length: 7 },
        (_, i) =>
          `Note ${f}.${s}.${i}: the reference ${f} section ${s} describes option ${i} of component ${f * 100 + s}.`,
      ).join(' ');
    for (let f = 0; f < 40; f++) {
      const sections = Array.from({ length: 10 }, (_, s) => `## Topic ${f}-${s}\n\n${filler(f, s)}\n`).join(
        '\n',
      );
      writeDocs(bigRoot, { [`docs/reference-${f}.md`]: `# Reference ${f}\n\n${sections}` });
    }
    const service = await start({}, bigRoot);
    const store = service.app.get(PassageStore);
    const modelId = service.app.get(Retriever).embedder!.modelId;
    const elu0 = performance.eventLoopUtilization();
    let answered = 0;
    for (let i = 0; i < 5; i++) {
      const res = await ask(service, 'How often is a failed webhook delivery retried?');
      expect(res.evidence.map((e) => e.pathOrUrl)).toContain('docs/webhooks.md#retry-schedule');
      const health = await fetch(`${service.healthUrl}/ready`);
      expect(health.status).toBe(200);
      answered++;
      await new Promise((r) => setTimeout(r, 500));
    }
    const elu = performance.eventLoopUtilization(elu0);
    // Positive proof that the answers overlapped the indexing: vectors were still missing after them.
    const missing = await store.countWithoutVector(modelId);
    process.stdout.write(
      `answered ${answered} questions while ${missing} passages waited for a vector; event loop utilisation ${elu.utilization.toFixed(3)}\n`,
    );
    expect(missing).toBeGreaterThan(0);
    // Embedding on the service’s own thread kept its event loop busy nearly all the time (0.997 seen);
    // in the model's thread, the loop only handles questions, probes and PostgreSQL round trips.
    expect(elu.utilization).toBeLessThan(0.5);
    fs.rmSync(bigRoot, { recursive: true, force: true });
  });

  it('falls back to the extractive answer, with a warning, when the language model is unreachable', async () => {
    const service = await start({ WDS_LLM_BASE_URL: 'http://127.0.0.1:9/v1', WDS_LLM_MAX_RETRIES: '0' });
    await service.app.get(DocsSearchService).vectorsReady();
    const res = await ask(service, 'How is a webhook delivery signed?');
    expect(res.warning).toMatch(/language model failed/);
    expect(res.evidence.map((e) => e.pathOrUrl)).toContain('docs/webhooks.md#signatures');
    expect(res.usage.totalTokens).toBe(0);
  });

  describe('with a real model server (llama.cpp, SmolLM2-135M)', () => {
    let model: RunningModelServer;
    beforeAll(async () => {
      model = await startTestModelServer();
    }, MODEL_SERVER_START_TIMEOUT_MS);
    afterAll(() => model?.stop());

    it('writes an expected answer for retrieval through the LLM port: its text, within its token cap, and its tokens', async () => {
      const llm = new OpenAiCompatibleLlm(
        llmConfigFromEnv({ WDS_LLM_BASE_URL: model.baseUrl, WDS_LLM_MODEL: model.modelName }),
      );
      const expansion = await new LlmAnswerModel(llm).expand(
        'How often is a failed webhook delivery retried?',
        AbortSignal.timeout(120_000),
      );
      expect(expansion.text?.length).toBeGreaterThan(0);
      expect(expansion.text).not.toMatch(/\s{2}|^\s|\s$/);
      expect(expansion.usage.promptTokens).toBeGreaterThan(0);
      expect(expansion.usage.completionTokens).toBeGreaterThan(0);
      expect(expansion.usage.completionTokens).toBeLessThanOrEqual(64);
      expect(expansion.model).toBeTruthy();
    });

    it('answers through the LLM port: cited evidence is always a retrieved passage, tokens are the model’s own and go into token usage', async () => {
      const service = await start({
        WDS_LLM_BASE_URL: model.baseUrl,
        WDS_LLM_MODEL: model.modelName,
        WDS_LLM_CONTEXT_TOKENS: '4096',
        // Two model calls per question (expected answer, then the answer), reported as one entry.
        WDS_DOCS_EXPAND_QUESTION: 'true',
      });
      // As in the cases above: on a loaded 2-core machine the start-up embedding can starve a
      // PostgreSQL connect past its 5 s timeout (seen once as 503 'database unavailable').
      await service.app.get(DocsSearchService).vectorsReady();
      const reported: ActivityBatch['tokens'] = [];
      await service.messaging.ensureStreams([STREAMS.WDS_ACTIVITY_V1]);
      const consumer = await service.messaging.consume(
        ACTIVITY,
        {
          stream: STREAMS.WDS_ACTIVITY_V1.name,
          durable: `test-${randomUUID()}`,
          filterSubject: ACTIVITY.subject,
          ackWaitMs: 30_000,
          maxDeliver: 3,
        },
        async (batch) => {
          reported.push(...batch.tokens);
        },
      );
      const answered = { input: 0, output: 0, calls: 0 };
      const refs = new Set(publishedPassages(root).map((p) => p.ref));
      for (const question of [
        'How often is a failed webhook delivery retried?',
        'How is a webhook delivery signed?',
      ]) {
        const res = await ask(service, question);
        expect(res.answer.length).toBeGreaterThan(0);
        // Evidence, unless the model said that no passage states it (a plumbing-size model may).
        if (!res.answer.startsWith(NOT_STATED_ANSWER)) expect(res.evidence.length).toBeGreaterThan(0);
        for (const e of res.evidence) {
          expect(refs).toContain(e.pathOrUrl);
          expect(e.reason.length).toBeGreaterThan(0);
        }
        // The model ran: valid or not, its tokens are reported (only a failed call has none).
        if (!res.warning || !/language model (failed|did not answer within)/.test(res.warning)) {
          expect(res.usage.inputTokens).toBeGreaterThan(0);
          expect(res.usage.totalTokens).toBe(res.usage.inputTokens + res.usage.outputTokens);
        }
        answered.input += res.usage.inputTokens;
        answered.output += res.usage.outputTokens;
        if (res.usage.totalTokens > 0) answered.calls++;
      }
      // (On a loaded machine both calls may time out and spend nothing; the e2e case in
      // apps/e2e/test/llm.spec.ts gives the model all the time it needs and requires tokens.)
      // The answer leaves only once its tokens are stored on the activity stream.
      const mine = () => reported.filter((t) => t.teamId === 'team-1' && t.endpoint === 'docs_search');
      for (const end = Date.now() + 30_000; mine().length < answered.calls && Date.now() < end;) {
        await new Promise((r) => setTimeout(r, 100));
      }
      await consumer.stop();
      expect(mine()).toHaveLength(answered.calls);
      expect(
        mine().every((t) => t.apiKey === 'key1' && t.model && t.eventId.startsWith('docs_search:')),
      ).toBe(true);
      expect(mine().reduce((n, t) => n + t.inputTokens, 0)).toBe(answered.input);
      expect(mine().reduce((n, t) => n + t.outputTokens, 0)).toBe(answered.output);
    });
  });
});

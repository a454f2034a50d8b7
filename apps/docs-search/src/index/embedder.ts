import { Worker } from 'node:worker_threads';

/** Tokens per text: the model was trained on 256-token inputs; longer passages are cut. */
const MAX_TOKENS = 256;
/**
 * Texts per model run inside the worker. Small, so a question's embedding waits for at most one
 * such run of the index's work (the worker serves questions before queued index batches).
 */
const RUN_BATCH = 4;
export const EMBEDDING_DIMENSIONS = 384;
/**
 * A passage longer than the model's input is read for late interaction in windows starting this
 * many tokens apart (254-token windows: 54 tokens of overlap give each token some context on both
 * sides).
 */
const WINDOW_STRIDE = 200;
/**
 * Passages' token vectors kept for late interaction (least recently used go first): 384 floats a
 * token, so 64 MB hold ~43,000 tokens, a few hundred passages (the evaluation's 181 questions read
 * ~700 distinct passages among their first 25).
 */
const TOKEN_CACHE_BYTES = 64 * 1024 * 1024;

/** What the worker thread receives. */
type Request =
  | { id: number; texts: string[]; urgent: boolean; query: boolean }
  | { id: number; index: string[] }
  | { id: number; question: string; passages: (string | Uint8Array)[] }
  | { id: number; close: true };
/** What it answers: all vectors of one request back to back (n × 384 floats), or why it failed. */
type Reply =
  | { ready: true; modelId: string }
  | { id: number; vectors: Float32Array; tokens?: Uint8Array[] }
  | { id: number; scores: Float64Array }
  | { id: number; closed: true }
  | { id?: number; error: string };

// Plain CommonJS run by Node itself in a worker thread (not through jest's VM or the service's
// module graph). The model (tokenizer, onnxruntime session, pooling) lives here only: a batch of
// passages costs seconds of CPU, and on the service's own thread it starved every request (a
// PostgreSQL connect ran past its 5 s timeout: 503). Questions jump the queue of index work.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const ort = require(workerData.ortPath);
const { Tokenizer } = require(workerData.tokenizersPath);
const { dir, threads, maxTokens, runBatch, dims, windowStride, tokenCacheBytes } = workerData;
// How the model's token vectors become one text vector, and what a question is prefixed with:
// the model folder's embedding.json (written with the model) says; without it, mean pooling.
const manifestFile = path.join(dir, 'embedding.json');
const manifest = fs.existsSync(manifestFile) ? JSON.parse(fs.readFileSync(manifestFile, 'utf8')) : {};
const pooling = manifest.pooling === 'cls' ? 'cls' : 'mean';
const queryPrefix = typeof manifest.queryPrefix === 'string' ? manifest.queryPrefix : '';
const passagePrefix = typeof manifest.passagePrefix === 'string' ? manifest.passagePrefix : '';

async function main() {
  const tokenizer = new Tokenizer(
    JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')),
    JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8')),
  );
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const hasTypeIds = session.inputNames.includes('token_type_ids');

  // At most maxTokens ids, keeping [CLS] ... [SEP] when cutting: the last id is [SEP].
  const cut = (ids) => (ids.length <= maxTokens ? ids : [...ids.slice(0, maxTokens - 1), ids[ids.length - 1]]);

  // The model's last hidden states for sequences of token ids (each with [CLS] ... [SEP]), padded
  // to the longest; row r's token t starts at (r * width + t) * dims.
  async function forward(encoded) {
    const width = Math.max(...encoded.map((e) => e.length));
    const n = encoded.length;
    const ids = new BigInt64Array(n * width);
    const mask = new BigInt64Array(n * width);
    encoded.forEach((e, r) => e.forEach((id, c) => { ids[r * width + c] = BigInt(id); mask[r * width + c] = 1n; }));
    const feeds = {
      input_ids: new ort.Tensor('int64', ids, [n, width]),
      attention_mask: new ort.Tensor('int64', mask, [n, width]),
    };
    if (hasTypeIds) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(n * width), [n, width]);
    const result = await session.run(feeds);
    return { hidden: result[session.outputNames[0]].data, width };
  }

  // Mean pooling over the attention mask (or the [CLS] token's vector) of sequence r's first
  // \`length\` hidden states, L2-normalised into v: a dot product of two vectors is their cosine.
  function pool(hidden, width, r, length, v) {
    const pooled = pooling === 'cls' ? 1 : length;
    for (let t = 0; t < pooled; t++) {
      const base = (r * width + t) * dims;
      for (let d = 0; d < dims; d++) v[d] += hidden[base + d];
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += (v[d] /= pooled) ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dims; d++) v[d] /= norm;
  }
  async function run(texts, out, offset, query) {
    const encodings = texts.map((t) => tokenizer.encode((query ? queryPrefix : passagePrefix) + t));
    const encoded = encodings.map((e) => cut(Array.from(e.ids)));
    const { hidden, width } = await forward(encoded);
    encoded.forEach((e, r) => pool(hidden, width, r, e.length, out.subarray((offset + r) * dims, (offset + r + 1) * dims)));
    // A question's token vectors from the same run, for its late interaction next.
    if (query) encodings.forEach((enc, r) => rememberQuestion(texts[r], questionRows(enc, encoded[r], hidden, width, r)));
  }

  // Late interaction (ColBERT-style MaxSim) with the same model's token vectors: each question
  // token's best cosine with any token of a passage, averaged over the question's tokens. The
  // question's punctuation and a few function words do not count: every passage has their like.
  // A passage longer than the model's input is read in windows that overlap by
  // (maxTokens - 2 - windowStride) tokens; each token counts once, from the first window that has it.
  const FUNCTION_WORDS = new Set(('the a an of to in on and or is are be i we our my it do does can how what which ' +
    'when why if for with at by from this that there as you your me us their they so any just get got').split(' '));
  const PUNCTUATION = /^[\\W_]+$/;
  // Unit rows back to back, from hidden states rows [from, to) of sequence r.
  function unitRows(hidden, width, r, from, to, out, at) {
    for (let t = from; t < to; t++, at++) {
      const base = (r * width + t) * dims;
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += hidden[base + d] ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dims; d++) out[at * dims + d] = hidden[base + d] / norm;
    }
  }
  // The question's token vectors (unit rows) but for punctuation and function words, from the
  // hidden states of its run of the model (row r).
  function questionRows(enc, ids, hidden, width, r) {
    const tokens = enc.tokens.slice(1, ids.length - 1);
    let keep = tokens.flatMap((t, i) => (PUNCTUATION.test(t) || FUNCTION_WORDS.has(t) ? [] : [i + 1]));
    if (!keep.length) keep = tokens.map((_, i) => i + 1);
    const out = new Float32Array(keep.length * dims);
    keep.forEach((t, i) => unitRows(hidden, width, r, t, t + 1, out, i));
    return out;
  }
  // Questions embedded lately (\`embed\` with query), by text: scoring one after its vector ranking
  // does not run the model on it again.
  const recentQuestions = new Map();
  function rememberQuestion(text, rows) {
    recentQuestions.delete(text);
    recentQuestions.set(text, rows);
    if (recentQuestions.size > 16) recentQuestions.delete(recentQuestions.keys().next().value);
  }
  async function questionTokens(question) {
    const hit = recentQuestions.get(question);
    if (hit) return hit;
    const enc = tokenizer.encode(queryPrefix + question);
    const ids = cut(Array.from(enc.ids));
    const { hidden, width } = await forward([ids]);
    return questionRows(enc, ids, hidden, width, 0);
  }
  // A passage's windows: [CLS] + up to maxTokens - 2 of its ids + [SEP], starting windowStride ids
  // apart; \`skip\`: leading ids of the window an earlier one has already read. The first window is
  // what the passage's own vector is pooled from (the model's input, cut as \`cut\` does).
  function windowsOf(text) {
    const all = Array.from(tokenizer.encode(passagePrefix + text).ids);
    const cls = all[0], sep = all[all.length - 1], ids = all.slice(1, -1);
    const span = maxTokens - 2;
    const windows = [];
    for (let start = 0; ; start += windowStride) {
      windows.push({ ids: [cls, ...ids.slice(start, start + span), sep], skip: start === 0 ? 0 : span - windowStride });
      if (start + span >= ids.length) break;
    }
    return windows;
  }
  // A passage's windows, each with the token rows it fills (\`rows\` from \`at\`) and, for the first,
  // the vector to pool the passage's own vector into (when one is wanted).
  function layout(text, vector) {
    const windows = windowsOf(text);
    let count = 0;
    for (const w of windows) {
      w.at = count;
      count += w.ids.length - 2 - w.skip;
    }
    const rows = new Float32Array(count * dims);
    windows.forEach((w, k) => {
      w.rows = rows;
      w.vector = k === 0 ? vector : undefined;
    });
    return { windows, rows };
  }
  // One run of the model over a few windows (of one passage or several): their token rows and
  // passage vectors, in place.
  async function readWindows(batch) {
    const { hidden, width } = await forward(batch.map((w) => w.ids));
    batch.forEach((w, r) => {
      if (w.vector) pool(hidden, width, r, w.ids.length, w.vector);
      unitRows(hidden, width, r, 1 + w.skip, w.ids.length - 1, w.rows, w.at);
    });
  }
  // Token vectors as stored (migration 0005): per token a float32 scale (little-endian), then
  // every token's components as int8, each unit-vector component / its token's scale, rounded
  // (scale: the token's largest |component| / 127). Scored in this form only, stored or not.
  function quantize(rows) {
    const n = rows.length / dims;
    const out = new Uint8Array(n * (4 + dims));
    const view = new DataView(out.buffer);
    const values = new Int8Array(out.buffer, 4 * n, n * dims);
    for (let t = 0; t < n; t++) {
      let max = 0;
      for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(rows[t * dims + d]));
      const scale = max / 127 || 1;
      view.setFloat32(4 * t, scale, true);
      for (let d = 0; d < dims; d++) values[t * dims + d] = Math.round(rows[t * dims + d] / scale);
    }
    return out;
  }
  function unpack(bytes) {
    if (!(bytes instanceof Uint8Array) || bytes.byteLength % (4 + dims))
      throw new Error('stored token vectors are not ' + dims + '-dimensional');
    const n = bytes.byteLength / (4 + dims);
    const view = new DataView(bytes.buffer, bytes.byteOffset, 4 * n);
    const scales = new Float32Array(n);
    for (let t = 0; t < n; t++) scales[t] = view.getFloat32(4 * t, true);
    return { n, scales, values: new Int8Array(bytes.buffer, bytes.byteOffset + 4 * n, n * dims), bytes: bytes.byteLength };
  }
  // A passage's token vectors computed from its text (not stored: indexed before its vectors
  // were), kept in a bounded cache: the same passages answer many questions.
  const tokenCache = new Map();
  let cachedBytes = 0;
  async function passageTokens(text) {
    const hit = tokenCache.get(text);
    if (hit) {
      tokenCache.delete(text);
      tokenCache.set(text, hit);
      return hit;
    }
    const { windows, rows } = layout(text);
    for (let i = 0; i < windows.length; i += runBatch) await readWindows(windows.slice(i, i + runBatch));
    const packed = unpack(quantize(rows));
    if (packed.bytes <= tokenCacheBytes) {
      tokenCache.set(text, packed);
      cachedBytes += packed.bytes;
      for (const [key, kept] of tokenCache) {
        if (cachedBytes <= tokenCacheBytes) break;
        tokenCache.delete(key);
        cachedBytes -= kept.bytes;
      }
    }
    return packed;
  }
  // Each question token's best cosine with a token of the passage, averaged. A passage token is
  // scaled back to floats once, then dotted with each question token (four sums in turn: ~2x
  // faster than one in V8).
  const row = new Float32Array(dims);
  function maxSim(q, p) {
    const nq = q.length / dims;
    if (!p.n || !nq) return 0;
    const best = new Float64Array(nq).fill(-Infinity);
    const { values, scales } = p;
    for (let j = 0; j < p.n; j++) {
      const base = j * dims, scale = scales[j];
      for (let d = 0; d < dims; d++) row[d] = values[base + d] * scale;
      for (let i = 0; i < nq; i++) {
        const qb = i * dims;
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (let d = 0; d < dims; d += 4) {
          s0 += q[qb + d] * row[d];
          s1 += q[qb + d + 1] * row[d + 1];
          s2 += q[qb + d + 2] * row[d + 2];
          s3 += q[qb + d + 3] * row[d + 3];
        }
        const s = s0 + s1 + s2 + s3;
        if (s > best[i]) best[i] = s;
      }
    }
    let sum = 0;
    for (let i = 0; i < nq; i++) sum += best[i];
    return sum / nq;
  }

  // A job is done in steps: a run of a few texts to embed, or one text to score against a question.
  function embedJob(m) {
    const out = new Float32Array(m.texts.length * dims);
    let done = 0;
    return {
      id: m.id,
      urgent: m.urgent,
      async step() {
        const slice = m.texts.slice(done, done + runBatch);
        await run(slice, out, done, m.query);
        done += slice.length;
        return done >= m.texts.length ? [{ id: m.id, vectors: out }, [out.buffer]] : undefined;
      },
    };
  }
  // Passages being indexed: each one's vector and its token vectors (quantized), from the same
  // runs of the model; windows of all the passages in a job, shortest first, a few per run.
  function indexJob(m) {
    const vectors = new Float32Array(m.index.length * dims);
    const passages = m.index.map((text, p) => layout(text, vectors.subarray(p * dims, (p + 1) * dims)));
    const order = passages.flatMap((l) => l.windows).sort((a, b) => a.ids.length - b.ids.length);
    let done = 0;
    return {
      id: m.id,
      urgent: false,
      async step() {
        const batch = order.slice(done, done + runBatch);
        if (batch.length) await readWindows(batch);
        done += batch.length;
        if (done < order.length) return undefined;
        const tokens = passages.map((l) => quantize(l.rows));
        return [{ id: m.id, vectors, tokens }, [vectors.buffer, ...tokens.map((t) => t.buffer)]];
      },
    };
  }
  // A question against passages, each its stored token vectors or its text.
  function scoreJob(m) {
    const scores = new Float64Array(m.passages.length);
    let q;
    let done = 0;
    return {
      id: m.id,
      urgent: true,
      async step() {
        if (!q) q = await questionTokens(m.question);
        else {
          const p = m.passages[done];
          scores[done++] = maxSim(q, typeof p === 'string' ? await passageTokens(p) : unpack(p));
        }
        return done >= m.passages.length ? [{ id: m.id, scores }, [scores.buffer]] : undefined;
      },
    };
  }
  // Between steps queued messages are read, and a question's job (urgent) goes before the rest of
  // the index's batches.
  const queue = [];
  let busy = false;
  let closing;
  const next = () => queue.findIndex((j) => j.urgent) >= 0 ? queue.findIndex((j) => j.urgent) : 0;
  async function drain() {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const job = queue[next()];
      let reply;
      try {
        reply = await job.step();
      } catch (err) {
        queue.splice(queue.indexOf(job), 1);
        parentPort.postMessage({ id: job.id, error: String((err && err.message) || err) });
        continue;
      }
      if (reply) {
        queue.splice(queue.indexOf(job), 1);
        parentPort.postMessage(...reply);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    busy = false;
    if (closing !== undefined) finish();
  }
  async function finish() {
    await session.release();
    parentPort.postMessage({ id: closing, closed: true });
    parentPort.close();
  }
  parentPort.on('message', (m) => {
    if (m.close) {
      closing = m.id;
      if (!busy) finish();
      return;
    }
    queue.push(m.question !== undefined ? scoreJob(m) : m.index ? indexJob(m) : embedJob(m));
    void drain();
  });
  parentPort.postMessage({ ready: true, modelId: path.basename(dir) + '@' + dims });
}
main().catch((err) => parentPort.postMessage({ error: String((err && err.stack) || err) }));
`;

/**
 * Sentence embeddings with all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime's CPU provider, computed in
 * a worker thread: BERT word pieces, mean pooling over the attention mask, L2-normalised, so a dot
 * product is the cosine. The service's event loop only posts texts and receives vectors.
 */
export class Embedder {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    /** Identifies the model in content hashes: vectors of another model are never mixed in. */
    readonly modelId: string,
  ) {
    worker.on('message', (reply: Reply) => {
      if (!('id' in reply) || reply.id === undefined) return;
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (!this.pending.size) worker.unref();
      if (!waiter) return;
      if ('error' in reply) waiter.reject(new Error(`embedding failed: ${reply.error}`));
      else waiter.resolve(reply);
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      for (const w of this.pending.values()) w.reject(this.failure);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the embedding thread stopped (exit ${code})`)));
  }

  /** Loads the model from `dir` (model.onnx, tokenizer.json, tokenizer_config.json) in its own thread. */
  static async load(
    dir: string,
    opts: { threads?: number; tokenCacheBytes?: number } = {},
  ): Promise<Embedder> {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        dir,
        threads: opts.threads ?? 1,
        maxTokens: MAX_TOKENS,
        runBatch: RUN_BATCH,
        dims: EMBEDDING_DIMENSIONS,
        windowStride: WINDOW_STRIDE,
        tokenCacheBytes: opts.tokenCacheBytes ?? TOKEN_CACHE_BYTES,
        ortPath: require.resolve('onnxruntime-node'),
        tokenizersPath: require.resolve('@huggingface/tokenizers'),
      },
    });
    // The thread keeps the process alive only while a request waits for it (close() ends it).
    worker.unref();
    const modelId = await new Promise<string>((resolve, reject) => {
      const onMessage = (m: Reply) => {
        if ('ready' in m) resolve(m.modelId);
        else if ('error' in m && m.id === undefined)
          reject(new Error(`loading the embedding model failed: ${m.error}`));
        else return;
        worker.off('message', onMessage);
        worker.off('error', reject);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
      worker.once('exit', (code) =>
        reject(new Error(`the embedding thread stopped while loading (exit ${code})`)),
      );
    }).catch(async (err: unknown) => {
      await worker.terminate();
      throw err;
    });
    return new Embedder(worker, modelId);
  }

  /**
   * Vectors of `texts`, in order. `urgent` (a question being asked) goes before queued index work;
   * index work waits behind it. `query`: the texts are questions to match passages with (a model
   * trained with a query instruction gets it in front of them).
   */
  async embed(texts: string[], opts: { urgent?: boolean; query?: boolean } = {}): Promise<Float32Array[]> {
    if (!texts.length) return [];
    const reply = await this.call({ texts, urgent: opts.urgent ?? false, query: opts.query ?? false });
    if (!('vectors' in reply)) throw new Error('embedding failed: no vectors');
    const all = reply.vectors;
    return texts.map((_, i) => all.subarray(i * EMBEDDING_DIMENSIONS, (i + 1) * EMBEDDING_DIMENSIONS));
  }

  /**
   * Passages being indexed: each one's vector (as `embed` makes it) and its token vectors for late
   * interaction (quantized, the form `lateInteraction` takes and the index stores), from the same
   * runs of the model. Queued behind questions like `embed`'s index work.
   */
  async embedPassages(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: Uint8Array[] }> {
    if (!texts.length) return { vectors: [], tokens: [] };
    const reply = await this.call({ index: texts });
    if (!('vectors' in reply) || !reply.tokens) throw new Error('embedding failed: no token vectors');
    const all = reply.vectors;
    return {
      vectors: texts.map((_, i) => all.subarray(i * EMBEDDING_DIMENSIONS, (i + 1) * EMBEDDING_DIMENSIONS)),
      tokens: reply.tokens,
    };
  }

  /**
   * Late-interaction scores of `passages` for `question`, in order: the mean over the question's
   * tokens (without punctuation and a few function words) of each one's best cosine with a token
   * of the passage (ColBERT's MaxSim, zero-shot with this model's token vectors). A passage is its
   * stored token vectors (`embedPassages`) or its text (the thread then computes them, and keeps
   * them for a while). Between 0 and 1 in practice; comparable across passages for one question
   * only. Goes before queued index work.
   */
  async lateInteraction(question: string, passages: (string | Uint8Array)[]): Promise<number[]> {
    if (!passages.length) return [];
    // A stored value may be a view of a larger buffer (node-postgres pools them): only its bytes go.
    const own = passages.map((p) => (typeof p === 'string' ? p : new Uint8Array(p)));
    const reply = await this.call(
      { question, passages: own },
      own.flatMap((p) => (typeof p === 'string' ? [] : [p.buffer as ArrayBuffer])),
    );
    if (!('scores' in reply)) throw new Error('late interaction failed: no scores');
    return Array.from(reply.scores);
  }

  private call(
    body:
      | { texts: string[]; urgent: boolean; query: boolean }
      | { index: string[] }
      | { question: string; passages: (string | Uint8Array)[] }
      | { close: true },
    transfer: ArrayBuffer[] = [],
  ): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, ...body } satisfies Request, transfer);
    });
  }

  /** Finishes the run in progress, releases the model and ends the thread. */
  async close(): Promise<void> {
    if (this.failure) return;
    await this.call({ close: true }).catch(() => undefined);
    await this.worker.terminate();
  }
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

import { Worker } from 'node:worker_threads';

/** Tokens per text: the model was trained on 256-token inputs; longer passages are cut. */
const MAX_TOKENS = 256;
/**
 * Texts per model run inside the worker. Small, so a question's embedding waits for at most one
 * such run of the index's work (the worker serves questions before queued index batches).
 */
const RUN_BATCH = 4;
export const EMBEDDING_DIMENSIONS = 384;

/** What the worker thread receives. */
type Request = { id: number; texts: string[]; urgent: boolean; query: boolean } | { id: number; close: true };
/** What it answers: all vectors of one request back to back (n × 384 floats), or why it failed. */
type Reply =
  | { ready: true; modelId: string }
  | { id: number; vectors: Float32Array }
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
const { dir, threads, maxTokens, runBatch, dims } = workerData;
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

  // Mean pooling over the attention mask (or the [CLS] token's vector), L2-normalised: a dot
  // product of two vectors is their cosine.
  async function run(texts, out, offset, query) {
    const encoded = texts.map((t) => {
      const ids = Array.from(tokenizer.encode((query ? queryPrefix : passagePrefix) + t).ids);
      // Keep [CLS] ... [SEP] when cutting: the last id is [SEP].
      return ids.length <= maxTokens ? ids : [...ids.slice(0, maxTokens - 1), ids[ids.length - 1]];
    });
    const width = Math.max(...encoded.map((e) => e.length));
    const n = texts.length;
    const ids = new BigInt64Array(n * width);
    const mask = new BigInt64Array(n * width);
    encoded.forEach((e, r) => e.forEach((id, c) => { ids[r * width + c] = BigInt(id); mask[r * width + c] = 1n; }));
    const feeds = {
      input_ids: new ort.Tensor('int64', ids, [n, width]),
      attention_mask: new ort.Tensor('int64', mask, [n, width]),
    };
    if (hasTypeIds) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(n * width), [n, width]);
    const result = await session.run(feeds);
    const hidden = result[session.outputNames[0]].data;
    encoded.forEach((e, r) => {
      const v = out.subarray((offset + r) * dims, (offset + r + 1) * dims);
      const pooled = pooling === 'cls' ? 1 : e.length;
      for (let t = 0; t < pooled; t++) {
        const base = (r * width + t) * dims;
        for (let d = 0; d < dims; d++) v[d] += hidden[base + d];
      }
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += (v[d] /= pooled) ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dims; d++) v[d] /= norm;
    });
  }

  // Work in runs of a few texts; between runs queued messages are read, and a question (urgent)
  // goes before the rest of the index's batches.
  const queue = [];
  let busy = false;
  let closing;
  const next = () => queue.findIndex((j) => j.urgent) >= 0 ? queue.findIndex((j) => j.urgent) : 0;
  async function drain() {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const job = queue[next()];
      const slice = job.texts.slice(job.done, job.done + runBatch);
      try {
        await run(slice, job.out, job.done, job.query);
        job.done += slice.length;
      } catch (err) {
        queue.splice(queue.indexOf(job), 1);
        parentPort.postMessage({ id: job.id, error: String((err && err.message) || err) });
        continue;
      }
      if (job.done >= job.texts.length) {
        queue.splice(queue.indexOf(job), 1);
        parentPort.postMessage({ id: job.id, vectors: job.out }, [job.out.buffer]);
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
    queue.push({ ...m, done: 0, out: new Float32Array(m.texts.length * dims) });
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
  static async load(dir: string, opts: { threads?: number } = {}): Promise<Embedder> {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        dir,
        threads: opts.threads ?? 1,
        maxTokens: MAX_TOKENS,
        runBatch: RUN_BATCH,
        dims: EMBEDDING_DIMENSIONS,
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

  private call(body: { texts: string[]; urgent: boolean; query: boolean } | { close: true }): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, ...body } satisfies Request);
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

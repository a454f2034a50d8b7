import fs from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';

/** Tokens per text: the model was trained on 256-token inputs; longer passages are cut. */
const MAX_TOKENS = 256;
const BATCH = 16;
export const EMBEDDING_DIMENSIONS = 384;

/**
 * Sentence embeddings with all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime's CPU provider: BERT word
 * pieces, mean pooling over the attention mask, L2-normalised, so a dot product is the cosine.
 */
export class Embedder {
  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
    /** Identifies the model in content hashes: vectors of another model are never mixed in. */
    readonly modelId: string,
  ) {}

  /** Loads the model from `dir` (model.onnx, tokenizer.json, tokenizer_config.json). */
  static async load(dir: string, opts: { threads?: number } = {}): Promise<Embedder> {
    const tokenizer = new Tokenizer(
      JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')),
      JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8')),
    );
    const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
      intraOpNumThreads: opts.threads ?? 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    return new Embedder(session, tokenizer, `${path.basename(dir)}@${EMBEDDING_DIMENSIONS}`);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) out.push(...(await this.batch(texts.slice(i, i + BATCH))));
    return out;
  }

  private async batch(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => {
      const ids: number[] = Array.from(this.tokenizer.encode(t).ids as ArrayLike<number>);
      // Keep [CLS] … [SEP] when cutting: the last id is [SEP].
      return ids.length <= MAX_TOKENS ? ids : [...ids.slice(0, MAX_TOKENS - 1), ids[ids.length - 1]];
    });
    const width = Math.max(...encoded.map((e) => e.length));
    const n = texts.length;
    const ids = new BigInt64Array(n * width);
    const mask = new BigInt64Array(n * width);
    encoded.forEach((e, r) =>
      e.forEach((id, c) => {
        ids[r * width + c] = BigInt(id);
        mask[r * width + c] = 1n;
      }),
    );
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids, [n, width]),
      attention_mask: new ort.Tensor('int64', mask, [n, width]),
    };
    if (this.session.inputNames.includes('token_type_ids')) {
      feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(n * width), [n, width]);
    }
    const result = await this.session.run(feeds);
    const hidden = result[this.session.outputNames[0]].data as Float32Array;
    const dims = EMBEDDING_DIMENSIONS;
    return encoded.map((e, r) => {
      const v = new Float32Array(dims);
      for (let t = 0; t < e.length; t++) {
        const base = (r * width + t) * dims;
        for (let d = 0; d < dims; d++) v[d] += hidden[base + d];
      }
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += (v[d] /= e.length) ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dims; d++) v[d] /= norm;
      return v;
    });
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

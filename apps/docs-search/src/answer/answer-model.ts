import type { DocsSearchEvidence } from '@wds/contracts';
import type { Retrieved } from '../search/retriever';

/** Injection token of the model that writes answers (`AnswerModel`). */
export const DOCS_ANSWER_MODEL = 'DOCS_ANSWER_MODEL';

export interface ModelAnswer {
  answer: string;
  /**
   * The retrieved passages the answer rests on (`attributeAnswer`): the model's citations of them
   * in its order, then those it took the answer from without citing them, without repeats.
   */
  evidence: DocsSearchEvidence[];
  /** The model's citations of retrieved passages that the answer takes nothing from (not returned). */
  unsupported: DocsSearchEvidence[];
  /** Passages in `evidence` that the model did not cite. */
  reattributed: number;
  /** Citations the model made that point at no retrieved passage. */
  dropped: number;
  /**
   * The model found no passage that states the answer and said so (`saysNotStated`): the answer
   * rests on no passage, so it has no evidence.
   */
  notStated?: boolean;
}

/** Tokens one model call spent. */
export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** One call of the model: its answer when the output was valid, and the tokens it spent either way. */
export interface ModelReply {
  /** Undefined when the model's output was not a valid answer (the caller quotes passages instead). */
  answer: ModelAnswer | undefined;
  usage: ModelUsage;
  model: string;
}

/** One call of the model writing what it expects the documentation to say (`AnswerModel.expand`). */
export interface ModelExpansion {
  /** The expected answer's text; undefined when the model wrote nothing usable. */
  text: string | undefined;
  usage: ModelUsage;
  model: string;
}

/** The port through which a language model answers from the retrieved passages. */
export interface AnswerModel {
  /** Whether a model is configured at all. */
  readonly enabled: boolean;
  /**
   * Before retrieval: a few sentences in the words the documentation would use to answer the
   * question, written without seeing any passage (a hypothetical answer, for the vector rankings:
   * `Retriever.retrieve`'s `expansion`). Never shown to the user nor cited.
   */
  /** `tenant`: the asking team; its calls take turns with other teams' (LlmRequest.tenant). */
  expand(question: string, signal: AbortSignal, tenant?: string): Promise<ModelExpansion>;
  answer(question: string, retrieved: Retrieved[], signal: AbortSignal, tenant?: string): Promise<ModelReply>;
}

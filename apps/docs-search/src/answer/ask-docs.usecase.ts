import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { DocsAskRequest, DocsSearchResult } from '@wds/contracts';
import type { ActivityRecorder } from '@wds/credits';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { Logger } from 'pino';
import type { DocsSearchConfig } from '../config';
import { Retriever } from '../search/retriever';
import { DOCS_ANSWER_MODEL, type AnswerModel, type ModelExpansion, type ModelUsage } from './answer-model';
import { extractiveAnswer } from './extractive';

/** Kept back from the gateway's deadline for the fallback answer and the reply's trip. */
const DEADLINE_MARGIN_MS = 2000;
/** At most this long for the expected answer (`AnswerModel.expand`): ~64 tokens. */
const EXPANSION_TIMEOUT_MS = 20_000;
/** At most this share of the time left goes to the expected answer; the answer needs the rest. */
const EXPANSION_SHARE = 0.3;

/** The answer when the model found that no passage shown states what was asked. */
export const NOT_STATED_ANSWER = 'The documentation found does not state this.';

export const NO_MODEL_WARNING =
  'No language model is configured (WDS_LLM_BASE_URL); the answer quotes the best-matching passages.';

/** Tokens of every model call for one question, and the model that spent them. */
interface TokenTally extends ModelUsage {
  model: string;
}

/** Injection token of where the tokens of answers are reported (an `ActivityRecorder`). */
export const DOCS_TOKEN_SINK = 'DOCS_TOKEN_SINK';
export type DocsTokenSink = Pick<ActivityRecorder, 'reportTokens'>;

/**
 * Answers a question from the index: the model's expected answer (when on), retrieval, then the
 * model's cited answer or an extractive one. The tokens of every model call for the question go
 * into the asking team's token usage as one entry (endpoint `docs_search`), also when its output
 * was not used.
 */
@Injectable()
export class AskDocs {
  constructor(
    private readonly retriever: Retriever,
    @Inject(DOCS_ANSWER_MODEL) private readonly model: AnswerModel,
    @Inject(DOCS_TOKEN_SINK) private readonly tokens: DocsTokenSink,
    @Inject(APP_CONFIG) private readonly config: DocsSearchConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(req: DocsAskRequest): Promise<DocsSearchResult> {
    const t0 = Date.now();
    // Tokens of every model call for this question, reported once before the answer leaves.
    const spent: TokenTally = { promptTokens: 0, completionTokens: 0, totalTokens: 0, model: '' };
    const spend = (call: { usage: ModelUsage; model: string }) => {
      spent.promptTokens += call.usage.promptTokens;
      spent.completionTokens += call.usage.completionTokens;
      spent.totalTokens += call.usage.totalTokens;
      spent.model ||= call.model;
    };
    const expansion = await this.expand(req);
    if (expansion) spend(expansion);
    const retrieved = await this.retriever.retrieve(
      req.question,
      this.config.WDS_DOCS_TOP_K,
      expansion?.text,
    );
    const finish = async (
      answer: string,
      evidence: DocsSearchResult['evidence'],
      warning?: string,
    ): Promise<DocsSearchResult> => {
      await this.report(req, spent);
      return {
        requestId: req.requestId,
        answer,
        evidence,
        usage: {
          inputTokens: spent.promptTokens,
          outputTokens: spent.completionTokens,
          totalTokens: spent.totalTokens,
        },
        durationMs: Date.now() - t0,
        ...(warning ? { warning } : {}),
      };
    };
    const extractive = (warning: string) => {
      const ex = extractiveAnswer(req.question, retrieved);
      return finish(ex.answer, ex.evidence, warning);
    };
    if (retrieved.length === 0) {
      return finish('The documentation has no passage that matches this question.', []);
    }
    if (!this.model.enabled) return extractive(NO_MODEL_WARNING);

    const budget = this.timeLeft(req, this.config.WDS_DOCS_ANSWER_TIMEOUT_MS);
    if (budget < 1000)
      return extractive(
        'No time was left for the language model; the answer quotes the best-matching passages.',
      );
    try {
      const reply = await this.model.answer(req.question, retrieved, AbortSignal.timeout(budget), req.teamId);
      spend(reply);
      const answer = reply.answer;
      if (!answer) {
        return extractive(
          'The language model did not produce a valid answer; the answer quotes the best-matching passages.',
        );
      }
      if (answer.notStated) {
        // No passage states it: said plainly, with the closest sections to read, and no evidence.
        const closest = retrieved
          .slice(0, 3)
          .map((r) => `"${r.passage.title.split(' › ').pop()}" (${r.passage.ref})`)
          .join('; ');
        return finish(`${NOT_STATED_ANSWER} The closest sections found: ${closest}.`, []);
      }
      if (answer.evidence.length === 0) {
        return extractive(
          'The language model cited no retrieved passage, so its answer was not used; the answer quotes the best-matching passages.',
        );
      }
      const dropped = answer.dropped
        ? `${answer.dropped} citation(s) that pointed at no retrieved passage were dropped.`
        : undefined;
      return finish(answer.answer, answer.evidence, dropped);
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
      this.logger.warn(
        { err, requestId: req.requestId },
        'docs answer: the language model failed; answering extractively',
      );
      return extractive(
        timedOut
          ? `The language model did not answer within ${Math.round(budget / 1000)} s; the answer quotes the best-matching passages.`
          : 'The language model failed; the answer quotes the best-matching passages.',
      );
    }
  }

  /** Milliseconds a model call may take: at most `cap`, and never past the caller's deadline. */
  private timeLeft(req: DocsAskRequest, cap: number): number {
    return Math.min(cap, req.deadline - DEADLINE_MARGIN_MS - Date.now());
  }

  /**
   * The model's expected answer for the vector rankings (`AnswerModel.expand`), when a model is
   * configured and expansion is on. It gets `EXPANSION_SHARE` of the time left (at most
   * `EXPANSION_TIMEOUT_MS`); when it fails or runs out of time, retrieval goes on with the question
   * alone (logged), and the answer keeps the rest of the time. Undefined when no call was made or
   * it failed.
   */
  private async expand(req: DocsAskRequest): Promise<ModelExpansion | undefined> {
    if (!this.model.enabled || !this.config.WDS_DOCS_EXPAND_QUESTION) return undefined;
    const budget = Math.min(
      EXPANSION_TIMEOUT_MS,
      this.timeLeft(req, this.config.WDS_DOCS_ANSWER_TIMEOUT_MS) * EXPANSION_SHARE,
    );
    if (budget < 1000) return undefined;
    try {
      return await this.model.expand(req.question, AbortSignal.timeout(budget), req.teamId);
    } catch (err) {
      this.logger.warn(
        { err, requestId: req.requestId },
        'docs answer: the expected answer for retrieval failed; retrieving with the question alone',
      );
      return undefined;
    }
  }

  /**
   * Records the question's tokens (all its model calls) before the answer leaves (the answer
   * reports them too, so they must be on the books). A recording failure does not cost the caller
   * the answer: it is logged.
   */
  private async report(req: DocsAskRequest, spent: TokenTally): Promise<void> {
    if (spent.totalTokens === 0) return;
    try {
      await this.tokens.reportTokens({
        // A fresh id: the request id may come from the client's x-request-id, which is not unique.
        eventId: `docs_search:${randomUUID()}`,
        teamId: req.teamId,
        apiKey: req.apiKey,
        endpoint: 'docs_search',
        model: spent.model,
        inputTokens: spent.promptTokens,
        outputTokens: spent.completionTokens,
        at: Date.now(),
      });
    } catch (err) {
      this.logger.error({ err, requestId: req.requestId }, 'docs answer: could not record its token usage');
    }
  }
}

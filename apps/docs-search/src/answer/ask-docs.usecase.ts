import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { DocsAskRequest, DocsSearchResult } from '@wds/contracts';
import type { ActivityRecorder } from '@wds/credits';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { Logger } from 'pino';
import type { DocsSearchConfig } from '../config';
import { Retriever } from '../search/retriever';
import { DOCS_ANSWER_MODEL, type AnswerModel, type ModelReply } from './answer-model';
import { extractiveAnswer } from './extractive';

/** Kept back from the gateway's deadline for the fallback answer and the reply's trip. */
const DEADLINE_MARGIN_MS = 2000;

export const NO_MODEL_WARNING =
  'No language model is configured (WDS_LLM_BASE_URL); the answer quotes the best-matching passages.';

/** Injection token of where the tokens of answers are reported (an `ActivityRecorder`). */
export const DOCS_TOKEN_SINK = 'DOCS_TOKEN_SINK';
export type DocsTokenSink = Pick<ActivityRecorder, 'reportTokens'>;

/**
 * Answers a question from the index: retrieval, then the model's cited answer or an extractive one.
 * Every model call's tokens go into the asking team's token usage (endpoint `docs_search`), also
 * when its output was not used.
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
    const retrieved = await this.retriever.retrieve(req.question, this.config.WDS_DOCS_TOP_K);
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    const finish = (
      answer: string,
      evidence: DocsSearchResult['evidence'],
      warning?: string,
    ): DocsSearchResult => ({
      requestId: req.requestId,
      answer,
      evidence,
      usage,
      durationMs: Date.now() - t0,
      ...(warning ? { warning } : {}),
    });
    const extractive = (warning: string) => {
      const ex = extractiveAnswer(req.question, retrieved);
      return finish(ex.answer, ex.evidence, warning);
    };
    if (retrieved.length === 0) {
      return finish('The documentation has no passage that matches this question.', []);
    }
    if (!this.model.enabled) return extractive(NO_MODEL_WARNING);

    const budget = Math.min(
      this.config.WDS_DOCS_ANSWER_TIMEOUT_MS,
      req.deadline - DEADLINE_MARGIN_MS - Date.now(),
    );
    if (budget < 1000)
      return extractive(
        'No time was left for the language model; the answer quotes the best-matching passages.',
      );
    try {
      const reply = await this.model.answer(req.question, retrieved, AbortSignal.timeout(budget));
      usage.inputTokens = reply.usage.promptTokens;
      usage.outputTokens = reply.usage.completionTokens;
      usage.totalTokens = reply.usage.totalTokens;
      await this.report(req, reply);
      const answer = reply.answer;
      if (!answer) {
        return extractive(
          'The language model did not produce a valid answer; the answer quotes the best-matching passages.',
        );
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

  /**
   * Records the call's tokens before the answer leaves (the answer reports them too, so they must be
   * on the books). A recording failure does not cost the caller the answer: it is logged.
   */
  private async report(req: DocsAskRequest, reply: ModelReply): Promise<void> {
    if (reply.usage.totalTokens === 0) return;
    try {
      await this.tokens.reportTokens({
        // A fresh id: the request id may come from the client's x-request-id, which is not unique.
        eventId: `docs_search:${randomUUID()}`,
        teamId: req.teamId,
        apiKey: req.apiKey,
        endpoint: 'docs_search',
        model: reply.model,
        inputTokens: reply.usage.promptTokens,
        outputTokens: reply.usage.completionTokens,
        at: Date.now(),
      });
    } catch (err) {
      this.logger.error({ err, requestId: req.requestId }, 'docs answer: could not record its token usage');
    }
  }
}

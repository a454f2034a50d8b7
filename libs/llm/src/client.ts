import type { LlmConfig } from './config';
import { estimateTokens, TRUNCATION_WARNING, truncateText } from './budget';
import { LlmError } from './errors';
import { callProvider, type ProviderAnswer } from './provider-call';
import { compileSchema, parseAndValidate } from './schema';
import { Semaphore } from './semaphore';
import {
  addUsage,
  type ChatMessage,
  type LlmFeature,
  type LlmPort,
  type LlmRequest,
  type LlmStructuredResult,
  type LlmTextResult,
  type StructuredRequest,
} from './types';

/** Tokens kept free beyond the estimate: chat template wrappers and estimation error. */
const SAFETY_TOKENS = 128;

export const SCHEMA_MISMATCH_WARNING =
  'The model could not produce output matching the requested schema (one repair attempt made); no structured data was returned.';

/**
 * THE LLM port: an OpenAI-compatible chat completions client (OpenAI, vLLM, Ollama, llama.cpp
 * server, the embedded model). One instance per process; it owns the per-replica concurrency cap.
 */
export class OpenAiCompatibleLlm implements LlmPort {
  private readonly gate: Semaphore;

  constructor(private readonly config: LlmConfig) {
    this.gate = new Semaphore(config.concurrency);
  }

  get enabled(): boolean {
    return Boolean(this.config.baseUrl);
  }

  get maxOutputTokens(): number {
    return this.config.maxOutputTokens;
  }

  /** Requests waiting for a slot (for metrics and the benchmark). */
  get queued(): number {
    return this.gate.queued;
  }

  modelFor(feature: LlmFeature): string {
    return this.config.featureModels[feature] ?? this.config.model;
  }

  estimateTokens(text: string): number {
    return estimateTokens(text, this.config.charsPerToken);
  }

  documentBudgetChars(_feature: LlmFeature, reserveTokens: number): number {
    const tokens = this.config.contextTokens - reserveTokens - SAFETY_TOKENS;
    return Math.max(0, Math.floor(tokens * this.config.charsPerToken));
  }

  async complete(req: LlmRequest): Promise<LlmTextResult> {
    const r = await this.run(req, undefined);
    return {
      text: r.answer.text,
      usage: r.answer.usage,
      model: r.answer.model,
      finishReason: r.answer.finishReason,
      truncated: r.truncated,
      warnings: r.warnings,
    };
  }

  async structured(req: StructuredRequest): Promise<LlmStructuredResult> {
    const validate = compileSchema(req.schema);
    const responseFormat = {
      type: 'json_schema',
      json_schema: { name: req.schemaName ?? 'result', schema: req.schema },
    };
    const first = await this.run(req, responseFormat);
    const check = parseAndValidate(first.answer.text, validate);
    const base = { model: first.answer.model, truncated: first.truncated };
    if (check.valid) {
      return {
        ...base,
        value: check.value,
        valid: true,
        raw: first.answer.text,
        repaired: false,
        usage: first.answer.usage,
        finishReason: first.answer.finishReason,
        warnings: first.warnings,
      };
    }
    // One repair round: the model sees its answer and what is wrong with it.
    const repairMessages: ChatMessage[] = [
      ...first.messages,
      { role: 'assistant', content: first.answer.text.slice(0, 8000) },
      {
        role: 'user',
        content: `That answer does not satisfy the JSON schema: ${check.errors.join('; ')}. Reply again with only the corrected JSON value, matching the schema exactly.`,
      },
    ];
    const second = await this.run(
      { ...req, messages: repairMessages, document: undefined, system: undefined, instruction: undefined },
      responseFormat,
    );
    const recheck = parseAndValidate(second.answer.text, validate);
    const usage = addUsage(first.answer.usage, second.answer.usage);
    const warnings = [...first.warnings];
    if (!recheck.valid) warnings.push(SCHEMA_MISMATCH_WARNING);
    return {
      ...base,
      value: recheck.valid ? recheck.value : undefined,
      valid: recheck.valid,
      raw: second.answer.text,
      repaired: true,
      usage,
      finishReason: second.answer.finishReason,
      warnings,
    };
  }

  /** Renders, budgets, queues and sends one request; shrinks the document once on a context overflow. */
  private async run(
    req: LlmRequest,
    responseFormat: Record<string, unknown> | undefined,
  ): Promise<{ answer: ProviderAnswer; messages: ChatMessage[]; truncated: boolean; warnings: string[] }> {
    const baseUrl = this.config.baseUrl;
    if (!baseUrl) {
      throw new LlmError(
        'not_configured',
        'No LLM provider is configured (set WDS_LLM_BASE_URL, or start the stack with its embedded model).',
      );
    }
    const maxTokens = Math.min(req.maxTokens ?? this.config.maxOutputTokens, this.config.maxOutputTokens);
    const schemaTokens = responseFormat ? this.estimateTokens(JSON.stringify(responseFormat)) : 0;
    let budget: number | undefined;
    for (let shrink = 0; ; shrink++) {
      const { messages, truncated } = this.render(req, maxTokens + schemaTokens, budget);
      const release = await this.gate.acquire(req.signal, req.tenant);
      try {
        const answer = await callProvider({
          baseUrl,
          apiKey: this.config.apiKey,
          model: this.modelFor(req.feature),
          feature: req.feature,
          messages,
          maxTokens,
          temperature: req.temperature ?? 0,
          responseFormat,
          timeoutMs: this.config.timeoutMs,
          maxRetries: this.config.maxRetries,
          signal: req.signal,
          charsPerToken: this.config.charsPerToken,
          tenant: req.tenant,
        });
        return { answer, messages, truncated, warnings: truncated ? [TRUNCATION_WARNING] : [] };
      } catch (err) {
        const docLen = req.document?.text.length ?? 0;
        if (err instanceof LlmError && err.kind === 'context_overflow' && shrink < 2 && docLen > 0) {
          const used = Math.min(
            budget ?? this.documentBudgetChars(req.feature, maxTokens + schemaTokens),
            docLen,
          );
          // Scale by what the provider reported (the window it has for the prompt vs what it got),
          // else halve.
          const o = err.overflow;
          const ratio = o
            ? Math.max(0.05, (o.contextTokens - maxTokens - SAFETY_TOKENS) / o.promptTokens) * 0.9
            : 0.5;
          budget = Math.floor(used * Math.min(ratio, 0.9));
          continue;
        }
        throw err;
      } finally {
        release();
      }
    }
  }

  private render(
    req: LlmRequest,
    reserveOutput: number,
    budgetOverride: number | undefined,
  ): { messages: ChatMessage[]; truncated: boolean } {
    if (req.messages) return { messages: req.messages, truncated: false };
    const system = req.system ?? '';
    const instruction = req.instruction ?? '';
    const messages: ChatMessage[] = [];
    if (system) messages.push({ role: 'system', content: system });
    if (!req.document) {
      messages.push({ role: 'user', content: instruction });
      return { messages, truncated: false };
    }
    const reserve = reserveOutput + this.estimateTokens(system) + this.estimateTokens(instruction) + 32;
    const budget = budgetOverride ?? this.documentBudgetChars(req.feature, reserve);
    const text = truncateText(req.document.text, budget);
    const truncated = text.length < req.document.text.length;
    if (budget < 200 && req.document.text.length > 0) {
      throw new LlmError(
        'context_overflow',
        "The instructions leave no room for the page in the model's context window.",
      );
    }
    const source = req.document.source ? ` source="${req.document.source.replace(/"/g, '%22')}"` : '';
    // The page goes in a delimited block so text inside it reads as data, not as instructions.
    messages.push({
      role: 'user',
      content: `${instruction}\n\n<page${source}>\n${escapePageTags(text)}\n</page>`,
    });
    return { messages, truncated };
  }
}

/** A page cannot close its own block: `</page>` inside it gets a zero-width space. */
function escapePageTags(text: string): string {
  return text.replace(/<(\/?)page/gi, '<$1\u200bpage');
}

import { findFormat, type FormatObject } from '@wds/contracts';
import {
  LLM_FORMAT_CREDITS,
  type LlmFormat,
  type LlmFormatInput,
  type LlmFormatOutcome,
  type ScrapeOptions,
} from './llm-format';

type TextAnswerType = 'question' | 'summary';

/** What tells one plain-text format from another. */
export interface TextAnswerSpec<T extends TextAnswerType> {
  /** The format's type in `formats`, also its LLM feature. */
  type: T;
  /** The document field the answer goes to. */
  field: 'answer' | 'summary';
  system: string;
  instruction(format: Extract<FormatObject, { type: T }>): string;
  maxTokens: number;
  /** The warning when the model answers with nothing. */
  emptyWarning: string;
}

/**
 * A format the model answers in plain text about the page (summary, question): one completion over
 * the page's markdown, its trimmed text in one field, a warning instead when it is empty.
 */
export abstract class TextAnswerFormat<T extends TextAnswerType> implements LlmFormat {
  readonly name: T;

  protected constructor(private readonly spec: TextAnswerSpec<T>) {
    this.name = spec.type;
  }

  requested(o: ScrapeOptions): boolean {
    return findFormat(o.formats, this.spec.type) !== undefined;
  }

  async run(input: LlmFormatInput): Promise<LlmFormatOutcome> {
    const { spec } = this;
    const r = await input.llm.complete({
      feature: spec.type,
      system: spec.system,
      instruction: spec.instruction(findFormat(input.options.formats, spec.type)!),
      document: { text: input.markdown, source: input.url },
      maxTokens: spec.maxTokens,
      signal: input.signal,
    });
    const text = r.text.trim();
    return {
      fields: text ? { [spec.field]: text } : {},
      warnings: text ? r.warnings : [...r.warnings, spec.emptyWarning],
      credits: LLM_FORMAT_CREDITS,
      usage: r.usage,
      model: r.model,
    };
  }
}

import { findFormat, ServiceError, type ActivityEndpoint, type Document } from '@wds/contracts';
import { compileSchema, forTenant, LlmError, type LlmPort, type LlmUsage } from '@wds/llm';
import type { Logger } from '@wds/observability';
import { cleanMarkdown } from './clean-content';
import { HighlightsFormat } from './highlights.format';
import { JsonFormat } from './json.format';
import { prepareJsonSchema } from './json-schema-shape';
import type { LlmFormat, ScrapeOptions } from './llm-format';
import { QuestionFormat } from './question.format';
import { SummaryFormat } from './summary.format';

/** THE registry of LLM formats: add a format by adding its module here. */
export const LLM_FORMATS: readonly LlmFormat[] = [
  new JsonFormat(),
  new SummaryFormat(),
  new QuestionFormat(),
  new HighlightsFormat(),
];

/** Tokens one format spent, for the team's token usage (billing, issue 16). */
export interface LlmTokenReport {
  feature: string;
  usage: LlmUsage;
  model: string | undefined;
}

/** Stores the tokens of one LLM call for the team's token usage (durably; idempotent by eventId). */
export type TokenSink = (event: {
  eventId: string;
  teamId: string;
  apiKey: string | null;
  endpoint: ActivityEndpoint;
  jobId: string;
  model: string | undefined;
  inputTokens: number;
  outputTokens: number;
  at: number;
}) => Promise<void>;

export interface LlmFormatsInput {
  /** Whose work this is (token usage is booked under it). */
  billing: { teamId: string; jobId: string; endpoint: ActivityEndpoint; apiKey: string | null };
  options: ScrapeOptions;
  zeroDataRetention: boolean;
  document: Document;
  url: string;
  /** Epoch ms by which the scrape must answer. */
  deadline: number;
}

export interface LlmFormatsOutcome {
  fields: Partial<Document>;
  warnings: string[];
  credits: number;
  tokens: LlmTokenReport[];
}

/**
 * Runs the LLM work a scrape asks for: `onlyCleanContent` first (it changes the markdown the other
 * formats read), then every requested LLM format at once (the port's concurrency cap queues them).
 * Under zero data retention none runs: each answers the spec's warning instead. A model failure
 * costs the format, not the page: its field is left out with a warning and no format credits.
 */
export class LlmFormats {
  constructor(
    private readonly llm: LlmPort,
    private readonly logger: Logger,
    private readonly tokens: TokenSink | undefined,
    private readonly formats: readonly LlmFormat[] = LLM_FORMATS,
  ) {}

  get enabled(): boolean {
    return this.llm.enabled;
  }

  /** Whether the request asks for any LLM work (it then needs markdown and is per request). */
  requested(o: ScrapeOptions): boolean {
    return o.onlyCleanContent || this.formats.some((f) => f.requested(o));
  }

  /**
   * Refuses, before anything is fetched, LLM work that cannot run: no provider configured, or a
   * `json` schema that is not a valid JSON Schema.
   */
  validate(o: ScrapeOptions): void {
    if (!this.requested(o)) return;
    if (!this.llm.enabled) {
      const what = this.formats.find((f) => f.requested(o));
      throw new ServiceError(
        'BAD_REQUEST',
        `${what ? `The '${what.name}' format` : "'onlyCleanContent'"} needs an LLM, and no LLM provider is configured on this service (WDS_LLM_BASE_URL)`,
        { field: what ? 'formats' : 'onlyCleanContent' },
      );
    }
    const json = findFormat(o.formats, 'json');
    if (json?.schema) {
      try {
        compileSchema(prepareJsonSchema(json.schema).schema);
      } catch (err) {
        throw new ServiceError('BAD_REQUEST', (err as Error).message, { field: 'formats' });
      }
    }
  }

  async execute(input: LlmFormatsInput): Promise<LlmFormatsOutcome> {
    const o = input.options;
    const out: LlmFormatsOutcome = { fields: {}, warnings: [], credits: 0, tokens: [] };
    const wanted = this.formats.filter((f) => f.requested(o));
    if (input.zeroDataRetention) {
      if (o.onlyCleanContent)
        out.warnings.push('onlyCleanContent is not supported with zero data retention.');
      for (const f of wanted)
        out.warnings.push(`The ${f.name} format is not supported with zero data retention.`);
      return out;
    }
    const signal = AbortSignal.timeout(Math.max(1, input.deadline - Date.now()));
    // The team's calls take turns with other teams' for this replica's model slots.
    const llm = forTenant(this.llm, input.billing.teamId);
    let markdown = input.document.markdown ?? '';
    if (o.onlyCleanContent) {
      try {
        const c = await cleanMarkdown(llm, markdown, input.url, signal);
        out.warnings.push(...c.warnings);
        out.credits += c.credits;
        if (c.usage) out.tokens.push({ feature: 'clean', usage: c.usage, model: c.model });
        if (c.markdown !== markdown) out.fields.markdown = markdown = c.markdown;
      } catch (err) {
        out.warnings.push(`onlyCleanContent failed: ${this.describe(err, 'clean')}`);
      }
    }
    const results = await Promise.all(
      wanted.map(async (f) => {
        if (!markdown.trim()) {
          return {
            name: f.name,
            outcome: {
              fields: {},
              warnings: [`The ${f.name} format was skipped because the page has no markdown content.`],
              credits: 0,
            },
          };
        }
        try {
          return {
            name: f.name,
            outcome: await f.run({ options: o, markdown, url: input.url, llm, signal }),
          };
        } catch (err) {
          return {
            name: f.name,
            outcome: {
              fields: {},
              warnings: [`The ${f.name} format failed: ${this.describe(err, f.name)}`],
              credits: 0,
            },
          };
        }
      }),
    );
    for (const { name, outcome } of results) {
      Object.assign(out.fields, outcome.fields);
      out.warnings.push(...outcome.warnings);
      out.credits += outcome.credits;
      if (outcome.usage) out.tokens.push({ feature: name, usage: outcome.usage, model: outcome.model });
    }
    await this.report(input.billing, out.tokens);
    return out;
  }

  /** Provider-reported tokens go to billing's token usage; estimates never do (contract). */
  async report(billing: LlmFormatsInput['billing'], tokens: LlmTokenReport[]): Promise<void> {
    if (!this.tokens) return;
    const input = { billing };
    const sink = this.tokens;
    const at = Date.now();
    await Promise.all(
      tokens
        .filter((t) => !t.usage.estimated && t.usage.totalTokens > 0)
        .map((t) =>
          sink({
            eventId: `${input.billing.jobId}:llm:${t.feature}`,
            teamId: input.billing.teamId,
            apiKey: input.billing.apiKey,
            endpoint: input.billing.endpoint,
            jobId: input.billing.jobId,
            model: t.model,
            inputTokens: t.usage.promptTokens,
            outputTokens: t.usage.completionTokens,
            at,
          }).catch((err: unknown) =>
            this.logger.warn(
              { jobId: input.billing.jobId, feature: t.feature, err },
              'LLM token usage not recorded',
            ),
          ),
        ),
    );
  }

  private describe(err: unknown, feature: string): string {
    if (err instanceof LlmError) {
      this.logger.warn({ feature, kind: err.kind, status: err.status }, 'LLM format failed');
      return err.message;
    }
    this.logger.error({ feature, err }, 'LLM format failed unexpectedly');
    return 'internal error';
  }
}

import { compile } from 'css-select';
import {
  findFormat,
  hasPerRequestFormat,
  ServiceError,
  type Document,
  type ScrapeRunRequest,
} from '@wds/contracts';
import { decodeBody } from '@wds/outbound';
import type { OutputFormat } from '../document/html-transformer';
import type { FetchedPage } from '../engine/fetch-engine';
import type { RenderedPage } from '../engine/browser-engine';
import { extractAttributes } from './attributes';
import type { TrackChangesUseCase } from './change-tracking/track-changes.usecase';
import type { MediaFormats } from './media/media-formats';
import type { LlmFormats, LlmTokenReport } from './llm/llm-formats';

type Options = ScrapeRunRequest['options'];

/** What the per-request formats add to a document: fields, warnings and their credits. */
export interface PerRequestOutcome {
  fields: Partial<Document>;
  warnings: string[];
  credits: number;
  /** Tokens the LLM formats spent (reported to billing by the caller). */
  tokens: LlmTokenReport[];
}

export interface PerRequestInput {
  cmd: ScrapeRunRequest;
  zeroDataRetention: boolean;
  document: Document;
  statusCode: number;
  fetchedAt: Date;
  /** The fetched or rendered page, for media discovery (absent on a cached copy). */
  page?: FetchedPage;
  /** Epoch ms by which the scrape must answer. */
  deadline: number;
}

/**
 * The formats computed beside the HTML transform: `attributes` and `branding` belong to the page
 * (they are part of a cached copy); `changeTracking`, `audio` and `video` are per request (compared
 * with the team's history, stored as expiring artifacts) and never part of a cached copy.
 */
export class PageFormats {
  constructor(
    private readonly changes: TrackChangesUseCase,
    private readonly media: MediaFormats | undefined,
    private readonly llm?: LlmFormats,
  ) {}

  /** Whether an LLM provider serves the LLM formats. */
  get llmEnabled(): boolean {
    return this.llm?.enabled ?? false;
  }

  /** Whether the request needs work after the page is obtained (never answered from a cached copy). */
  isPerRequest(o: Options): boolean {
    return hasPerRequestFormat(o.formats) || o.onlyCleanContent;
  }

  /** Refuses, before anything is fetched, options of these formats that can never work. */
  validate(o: Options): void {
    this.llm?.validate(o);
    const attributes = findFormat(o.formats, 'attributes');
    for (const { selector } of attributes?.selectors ?? []) {
      try {
        compile(selector);
      } catch (err) {
        throw new ServiceError(
          'BAD_REQUEST',
          `Invalid CSS selector '${selector}': ${(err as Error).message}`,
          {
            field: 'formats',
          },
        );
      }
    }
  }

  /** The HTML transform's formats: markdown too when change tracking compares it. */
  transformFormats(o: Options, requested: Set<OutputFormat>): Set<OutputFormat> {
    if (findFormat(o.formats, 'changeTracking')) requested.add('markdown');
    if (this.llm?.requested(o)) requested.add('markdown');
    return requested;
  }

  /** `attributes` and `branding` of a freshly obtained page (part of its cacheable document). */
  pageFields(o: Options, page: FetchedPage, rendered: RenderedPage | undefined): Partial<Document> {
    const out: Partial<Document> = {};
    const attributes = findFormat(o.formats, 'attributes');
    if (attributes) {
      const html = isHtml(page) ? decodeBody(page.body, page.contentType).text : '';
      out.attributes = extractAttributes(html, attributes);
    }
    if (findFormat(o.formats, 'branding') && rendered?.branding) out.branding = rendered.branding;
    return out;
  }

  /** `changeTracking`, `audio`, `video`: computed for this request, after the page is obtained. */
  async perRequest(input: PerRequestInput): Promise<PerRequestOutcome> {
    const o = input.cmd.options;
    const out: PerRequestOutcome = { fields: {}, warnings: [], credits: 0, tokens: [] };
    const tracking = findFormat(o.formats, 'changeTracking');
    const media = this.mediaFormats(o);
    const work: Promise<void>[] = [];
    if (tracking) {
      work.push(
        this.changes
          .execute({
            teamId: input.cmd.teamId,
            jobId: input.cmd.jobId,
            url: o.url,
            format: tracking,
            markdown: input.document.markdown ?? '',
            statusCode: input.statusCode,
            fetchedAt: input.fetchedAt,
            zeroDataRetention: input.zeroDataRetention,
            signal: AbortSignal.timeout(Math.max(1, input.deadline - Date.now())),
          })
          .then((r) => {
            if (r.changeTracking) out.fields.changeTracking = r.changeTracking;
            if (r.warning) out.warnings.push(r.warning);
            out.credits += r.credits ?? 0;
            if (r.usage && r.usage.totalTokens > 0)
              out.tokens.push({ feature: 'changeTracking', usage: r.usage, model: r.model });
          }),
      );
    }
    if (media.length > 0) {
      if (!this.media) {
        throw new ServiceError('BAD_REQUEST', `The '${media[0]}' format is not available on this service`, {
          field: 'formats',
        });
      }
      const mediaService = this.media;
      work.push(
        (async () => {
          if (!input.page) {
            out.warnings.push(`The ${media.join(' and ')} format needs the page itself, not a cached copy.`);
            return;
          }
          const r = await mediaService.execute({
            teamId: input.cmd.teamId,
            kinds: media,
            page: input.page,
            deadline: input.deadline,
            skipTlsVerification: o.skipTlsVerification,
          });
          Object.assign(out.fields, r.fields);
          out.warnings.push(...r.warnings);
          out.credits += r.credits;
        })(),
      );
    }
    if (this.llm?.requested(o)) {
      const llm = this.llm;
      work.push(
        llm
          .execute({
            billing: {
              teamId: input.cmd.teamId,
              jobId: input.cmd.jobId,
              endpoint: input.cmd.usage?.endpoint ?? 'scrape',
              apiKey: input.cmd.usage?.apiKey ?? null,
            },
            options: o,
            zeroDataRetention: input.zeroDataRetention,
            document: input.document,
            url: o.url,
            deadline: input.deadline,
          })
          .then((r) => {
            Object.assign(out.fields, r.fields);
            out.warnings.push(...r.warnings);
            out.credits += r.credits;
            out.tokens.push(...r.tokens);
          }),
      );
    }
    await Promise.all(work);
    return out;
  }

  private mediaFormats(o: Options): ('audio' | 'video')[] {
    const kinds: ('audio' | 'video')[] = [];
    if (findFormat(o.formats, 'audio')) kinds.push('audio');
    if (findFormat(o.formats, 'video')) kinds.push('video');
    return kinds;
  }
}

function isHtml(page: FetchedPage): boolean {
  const type = (page.contentType ?? '').split(';')[0].trim().toLowerCase();
  return type === '' || type === 'text/html' || type === 'application/xhtml+xml' || type.endsWith('xml');
}

import { compile } from 'css-select';
import {
  findFormat,
  hasPerRequestFormat,
  ServiceError,
  type Document,
  type FormatObject,
  type ScrapeRunRequest,
} from '@wds/contracts';
import { decodeBody } from '@wds/outbound';
import type { OutputFormat } from '../document/html-transformer';
import type { PageWorkers } from '../document/page-workers';
import { PooledHtmlTransformer } from '../document/pooled.html-transformer';
import type { FetchedPage } from '../engine/fetch-engine';
import type { RenderedPage } from '../engine/browser-engine';
import { extractAttributes } from './attributes';
import type { TrackChangesUseCase } from './change-tracking/track-changes.usecase';
import type { MediaFormats } from './media/media-formats';
import { PERSONALITY_TEXT_CHARS, type BrandingRoles } from './llm/branding-roles';
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

/** `attributes` and `branding` of a fetched page, with the tokens and warnings of the branding pass. */
export interface PageFieldsOutcome {
  fields: Partial<Document>;
  warnings: string[];
  tokens: LlmTokenReport[];
}

export interface PageFieldsInput {
  cmd: ScrapeRunRequest;
  zeroDataRetention: boolean;
  page: FetchedPage;
  rendered: RenderedPage | undefined;
  /** Epoch ms by which the scrape must answer. */
  deadline: number;
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
    /** The optional LLM naming of branding colour roles (WDS_BRANDING_LLM with a provider). */
    private readonly brandingRoles?: BrandingRoles,
    /** Threads for the `attributes` parse of a large page (else on the event loop). */
    private readonly workers?: PageWorkers,
  ) {
    this.transformer = new PooledHtmlTransformer(workers);
  }

  /** The branding personality's page text: the same transform as the scrape's. */
  private readonly transformer: PooledHtmlTransformer;

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

  /**
   * `attributes` and `branding` of a freshly obtained page (part of its cacheable document). With
   * WDS_BRANDING_LLM the model names the colour roles among the page's measured colours here, once
   * per fetched page: the roles depend only on the page, so they are part of the cached copy (a
   * cache hit spends no tokens). Not under zero data retention (no page content goes to the model).
   */
  async pageFields(input: PageFieldsInput): Promise<PageFieldsOutcome> {
    const { page, rendered } = input;
    const o = input.cmd.options;
    const out: PageFieldsOutcome = { fields: {}, warnings: [], tokens: [] };
    const attributes = findFormat(o.formats, 'attributes');
    if (attributes) {
      const html = isHtml(page) ? decodeBody(page.body, page.contentType).text : '';
      out.fields.attributes = await this.attributesOf(html, attributes, input.deadline, input.cmd.teamId);
    }
    if (findFormat(o.formats, 'branding') && rendered?.branding) {
      out.fields.branding = rendered.branding;
      if (this.brandingRoles && !input.zeroDataRetention && rendered.brandingPalette?.length) {
        await this.nameBrandingRoles(input, rendered.branding, rendered.brandingPalette, out);
      }
    }
    return out;
  }

  /** The `attributes` format; a large page is parsed in a worker thread, stopped at the deadline. */
  private async attributesOf(
    html: string,
    format: Extract<FormatObject, { type: 'attributes' }>,
    deadline: number,
    teamId: string,
  ): Promise<NonNullable<Document['attributes']>> {
    if (!this.workers?.wants(html)) return extractAttributes(html, format);
    const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
    const reply = await this.workers
      .run({ kind: 'attributes', html, format }, signal, teamId)
      .catch((err: unknown) => {
        if (signal.aborted)
          throw new ServiceError('SCRAPE_TIMEOUT', 'The attributes format did not finish in time.');
        throw err;
      });
    if (!reply.ok) {
      throw new ServiceError(
        'BAD_REQUEST',
        'badRequest' in reply ? reply.badRequest : reply.invalidSelector,
        {
          field: 'formats',
        },
      );
    }
    if (!('attributes' in reply)) throw new Error('page worker answered another task');
    return reply.attributes;
  }

  /**
   * What an HTML page says, for the branding personality: its title and description, then the
   * opening of its main content as markdown (cut at PERSONALITY_TEXT_CHARS by the pass).
   */
  private async pageWords(page: FetchedPage, teamId: string): Promise<string | undefined> {
    if (!isHtml(page)) return undefined;
    const html = decodeBody(page.body, page.contentType).text;
    // The scrape's own transform (a large page in a worker thread, in its team's turn).
    const { metadata, markdown } = await this.transformer.transform(html, {
      url: page.url ?? 'http://localhost/',
      formats: new Set(['markdown']),
      onlyMainContent: true,
      removeBase64Images: true,
      teamId,
    });
    const head = [metadata.title, metadata.description].filter((s) => typeof s === 'string' && s.trim());
    const words = [...head, (markdown ?? '').slice(0, PERSONALITY_TEXT_CHARS)].join('\n').trim();
    return words || undefined;
  }

  private async nameBrandingRoles(
    input: PageFieldsInput,
    branding: NonNullable<RenderedPage['branding']>,
    palette: NonNullable<RenderedPage['brandingPalette']>,
    out: PageFieldsOutcome,
  ): Promise<void> {
    try {
      const r = await this.brandingRoles!.execute({
        branding,
        palette,
        url: input.cmd.options.url,
        pageText: await this.pageWords(input.page, input.cmd.teamId),
        teamId: input.cmd.teamId,
        signal: AbortSignal.timeout(Math.max(1, input.deadline - Date.now())),
      });
      out.fields.branding = r.branding;
      out.warnings.push(...r.warnings);
      if (r.usage) out.tokens.push({ feature: 'branding', usage: r.usage, model: r.model });
    } catch (err) {
      out.warnings.push(
        `The model could not name the branding colour roles (${(err as Error).message}); the measured roles are kept.`,
      );
    }
    if (out.tokens.length > 0) {
      await this.llm?.report(
        {
          teamId: input.cmd.teamId,
          jobId: input.cmd.jobId,
          endpoint: input.cmd.usage?.endpoint ?? 'scrape',
          apiKey: input.cmd.usage?.apiKey ?? null,
        },
        out.tokens,
      );
    }
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
            hidden: input.cmd.hiddenInCrawl === true,
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

import { contentCost, ServiceError, type ContentKind, type Document } from '@wds/contracts';
import { decodeBody, isTextual } from '@wds/outbound';
import { PdfReadError, pdfToMarkdown, type PdfTextExtractor } from '../pdf/pdf-extractor';
import type { HtmlTransformer, OutputFormat } from './html-transformer';
import { buildMetadata } from './metadata';

export interface ContentOptions {
  /** URL as requested (metadata.sourceURL). */
  sourceUrl: string;
  formats: ReadonlySet<OutputFormat>;
  onlyMainContent: boolean;
  includeTags?: string[];
  excludeTags?: string[];
  removeBase64Images: boolean;
  /** `parsers` includes pdf: PDFs become markdown; otherwise the file is returned base64. */
  parsePdf: boolean;
  /** The team the page is for: a large page's turn in the worker threads is its team's. */
  teamId?: string;
}

export interface FetchedContent {
  url: string;
  status: number;
  body: Buffer;
  contentType?: string;
}

export interface BuiltDocument {
  document: Document;
  content: ContentKind;
  /** Cost of the content alone (no proxy surcharge): what a cache hit of this document costs. */
  contentCredits: number;
}

function isPdf(page: FetchedContent): boolean {
  if (page.contentType?.toLowerCase().includes('application/pdf')) return true;
  return page.body.subarray(0, 5).toString('latin1') === '%PDF-';
}

function mimeType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

const HTML_TYPES = new Set(['', 'text/html', 'application/xhtml+xml']);

/** Turns fetched bytes into the response document for the requested formats. */
export class DocumentBuilder {
  constructor(
    private readonly html: HtmlTransformer,
    private readonly pdf: PdfTextExtractor,
  ) {}

  async build(page: FetchedContent, o: ContentOptions): Promise<BuiltDocument> {
    const base = {
      sourceURL: o.sourceUrl,
      url: page.url,
      statusCode: page.status,
      contentType: page.contentType,
    };
    if (isPdf(page)) return this.buildPdf(page, o, base);
    const type = mimeType(page.contentType);
    if (!HTML_TYPES.has(type) && !isTextual(page.contentType)) {
      throw new ServiceError(
        'UPSTREAM_FAILED',
        `Unsupported content type ${type} at ${page.url}: only HTML, text and PDF can be scraped`,
        { reason: 'unsupported_content', contentType: type },
      );
    }
    const { text } = decodeBody(page.body, page.contentType);
    const content: ContentKind = { kind: 'page' };
    if (HTML_TYPES.has(type) || type.endsWith('+xml') || type === 'application/xml' || type === 'text/xml') {
      const out = await this.html.transform(text, {
        url: page.url,
        formats: o.formats,
        onlyMainContent: o.onlyMainContent,
        includeTags: o.includeTags,
        excludeTags: o.excludeTags,
        removeBase64Images: o.removeBase64Images,
        teamId: o.teamId,
      });
      const { metadata, ...rest } = out;
      return {
        document: { ...rest, metadata: buildMetadata(metadata, base) },
        content,
        contentCredits: contentCost(content),
      };
    }
    // Plain text, JSON, CSV...: the text is its own markdown, there is no markup to transform.
    return {
      document: { ...textFormats(text, o.formats), metadata: buildMetadata(base) },
      content,
      contentCredits: contentCost(content),
    };
  }

  private async buildPdf(
    page: FetchedContent,
    o: ContentOptions,
    base: Record<string, unknown>,
  ): Promise<BuiltDocument> {
    const metadata = { ...base, contentType: page.contentType ?? 'application/pdf' };
    if (!o.parsePdf) {
      const content: ContentKind = { kind: 'pdf-base64' };
      const b64 = page.body.toString('base64');
      return {
        document: { ...textFormats(b64, o.formats), metadata: buildMetadata(metadata) },
        content,
        contentCredits: contentCost(content),
      };
    }
    const text = await this.pdf.extract(page.body).catch((err: unknown) => {
      throw err instanceof PdfReadError
        ? new ServiceError('UPSTREAM_FAILED', `${err.message} (${page.url})`, { reason: 'pdf' })
        : err;
    });
    const content: ContentKind = { kind: 'pdf', pages: text.pages.length };
    const markdown = pdfToMarkdown(text);
    const document: Document = {
      ...textFormats(markdown, o.formats),
      metadata: buildMetadata(metadata, { numPages: text.pages.length, title: text.title }),
    };
    return { document, content, contentCredits: contentCost(content) };
  }
}

/** Formats for content without markup: the same text in every textual format, no links or images. */
function textFormats(text: string, formats: ReadonlySet<OutputFormat>): Partial<Document> {
  const out: Partial<Document> = {};
  if (formats.has('markdown')) out.markdown = text;
  if (formats.has('html')) out.html = text;
  if (formats.has('rawHtml')) out.rawHtml = text;
  if (formats.has('links')) out.links = [];
  if (formats.has('images')) out.images = [];
  return out;
}

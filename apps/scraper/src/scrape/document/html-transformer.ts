import type { Document, DocumentMetadata } from '@wds/contracts';

export type OutputFormat = 'markdown' | 'html' | 'rawHtml' | 'links' | 'images';

export interface HtmlTransformOptions {
  url: string;
  formats: ReadonlySet<OutputFormat>;
  onlyMainContent: boolean;
  includeTags?: string[];
  excludeTags?: string[];
  removeBase64Images: boolean;
  /** The team the page is for (worker threads take teams in turn); not a transform option. */
  teamId?: string;
}

export type HtmlTransformResult = Pick<Document, 'markdown' | 'html' | 'rawHtml' | 'links' | 'images'> & {
  metadata: DocumentMetadata;
};

/** Port: HTML → requested formats + page metadata (CPU-bound, pure). */
export abstract class HtmlTransformer {
  abstract transform(rawHtml: string, opts: HtmlTransformOptions): Promise<HtmlTransformResult>;
}

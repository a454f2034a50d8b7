export type OutputFormat = 'markdown' | 'html' | 'rawHtml' | 'links' | 'images' | 'metadata';

export interface TransformOptions {
  /** Final page URL: the base for absolute links (a `<base href>` in the page takes precedence). */
  url: string;
  /** Formats to produce; metadata is always computed. */
  formats: ReadonlySet<OutputFormat>;
  /** Drop navigation, headers/footers, sidebars, banners and similar boilerplate. Default true. */
  onlyMainContent?: boolean;
  /** CSS selectors (tag, .class, #id, [attr], descendant/child combinators): keep only these. */
  includeTags?: readonly string[];
  /** CSS selectors to drop. */
  excludeTags?: readonly string[];
  /** Markdown keeps the alt text of `data:` images and replaces the URL by a placeholder. Default true. */
  removeBase64Images?: boolean;
}

export interface PageMetadata {
  title?: string;
  description?: string;
  language?: string;
  keywords?: string;
  ogLocaleAlternate?: string[];
  favicon?: string;
  [key: string]: string | string[] | number | boolean | undefined;
}

export interface TransformResult {
  markdown?: string;
  /** Cleaned HTML: after main-content/include/exclude filtering, without scripts/styles, absolute URLs. */
  html?: string;
  /** The input, unchanged. */
  rawHtml?: string;
  /** Unique absolute http(s) links of the whole page (not filtered by main content). */
  links?: string[];
  /** Unique absolute image URLs (img src/srcset, picture sources, og:image). */
  images?: string[];
  metadata: PageMetadata;
}

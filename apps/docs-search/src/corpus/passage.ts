/** One retrievable unit of the reference: a section (or part of a long section) of one source. */
export interface Passage {
  /** Where it comes from, relative to the docs root (`docs/webhooks.md`), or `openapi` / `spec/api-v2.md`. */
  source: string;
  /** Stable citation: `docs/webhooks.md#retries`, `README.md#L40-L72`, `openapi#/paths/~1v2~1crawl/post`. */
  ref: string;
  /** Heading trail, outermost first (`Webhooks › Retries`); weighted above the body in search. */
  title: string;
  body: string;
  /** 1-based inclusive line range in the source file; 0/0 for generated passages (OpenAPI). */
  lineStart: number;
  lineEnd: number;
}

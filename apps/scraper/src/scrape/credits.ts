/** Credit prices of the scrape (api-v2 "Credits and cost rules"). */
export const CREDITS = {
  page: 1,
  pdfPage: 1,
  pdfBase64: 1,
  /** Added to the base cost when the page was fetched through an enhanced proxy (total 5 for a page). */
  enhancedProxySurcharge: 4,
  lockdownHit: 5,
  lockdownMiss: 1,
} as const;

export type ContentKind = { kind: 'page' } | { kind: 'pdf'; pages: number } | { kind: 'pdf-base64' };

/** Cost of producing a document from fetched content. */
export function contentCost(content: ContentKind): number {
  switch (content.kind) {
    case 'page':
      return CREDITS.page;
    case 'pdf':
      return Math.max(1, content.pages) * CREDITS.pdfPage;
    case 'pdf-base64':
      return CREDITS.pdfBase64;
  }
}

/** Cost of a fresh scrape: the content cost, plus the surcharge when an enhanced proxy served it. */
export function freshScrapeCost(content: ContentKind, proxyUsed: 'basic' | 'enhanced' | undefined): number {
  return contentCost(content) + (proxyUsed === 'enhanced' ? CREDITS.enhancedProxySurcharge : 0);
}

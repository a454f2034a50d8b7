import { contentCost, CREDITS, freshScrapeCost } from './credits';

describe('scrape credits', () => {
  it('bills a page 1, a parsed PDF per page and a base64 PDF flat', () => {
    expect(contentCost({ kind: 'page' })).toBe(1);
    expect(contentCost({ kind: 'pdf', pages: 7 })).toBe(7);
    expect(contentCost({ kind: 'pdf', pages: 0 })).toBe(1);
    expect(contentCost({ kind: 'pdf-base64' })).toBe(1);
  });

  it('bills 5 for a page served through an enhanced proxy, the regular cost otherwise', () => {
    expect(freshScrapeCost({ kind: 'page' }, 'enhanced')).toBe(5);
    expect(freshScrapeCost({ kind: 'page' }, 'basic')).toBe(1);
    expect(freshScrapeCost({ kind: 'page' }, undefined)).toBe(1);
    expect(freshScrapeCost({ kind: 'pdf', pages: 3 }, 'enhanced')).toBe(3 + CREDITS.enhancedProxySurcharge);
  });
});

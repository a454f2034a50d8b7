import { retainFor } from './document-delivery';

const HOUR = 3_600_000;

describe('retainFor', () => {
  const now = 1_000_000_000_000;

  it('keeps a row for the scraper retention when no job bounds it (a public scrape)', () => {
    expect(retainFor(24 * HOUR, undefined, now)).toBe(24 * HOUR);
  });

  it('cuts a crawl or batch page to what is left of its job', () => {
    expect(retainFor(24 * HOUR, now + 6 * HOUR, now)).toBe(6 * HOUR);
    // A job that outlives the scraper's retention does not extend it.
    expect(retainFor(24 * HOUR, now + 48 * HOUR, now)).toBe(24 * HOUR);
  });

  it('keeps the page of an already expired job for nothing', () => {
    expect(retainFor(24 * HOUR, now - 1, now)).toBe(0);
  });
});

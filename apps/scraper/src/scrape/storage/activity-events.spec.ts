import { activityEvents } from './scraper-writes';
import type { ScrapeRecord } from './scrape-store';

const row = (over: Partial<ScrapeRecord>): { scrape: ScrapeRecord } => ({
  scrape: {
    id: '7f0f5a0e-9a43-4f0e-9d55-6f1f3c1d2e01',
    teamId: 'team-a',
    url: 'https://example.com/a',
    status: 'completed',
    creditsUsed: 1,
    cacheHit: false,
    zeroDataRetention: false,
    retainMs: 1000,
    activity: { apiKey: 'abcdefghijkl', createdAt: 1_700_000_000_000 },
    ...over,
  },
});

describe('activity events of the scraper writes', () => {
  it('records public scrapes (completed, or failed but charged) once per job, with their key and time', () => {
    const events = activityEvents([
      row({}),
      row({ id: 'b', status: 'failed', creditsUsed: 1, zeroDataRetention: true, url: undefined }),
      row({ id: 'c', status: 'failed', creditsUsed: 0 }),
      row({ id: 'd', activity: undefined }),
    ]);
    expect(events).toEqual([
      {
        eventId: 'scrape:7f0f5a0e-9a43-4f0e-9d55-6f1f3c1d2e01',
        teamId: 'team-a',
        id: '7f0f5a0e-9a43-4f0e-9d55-6f1f3c1d2e01',
        endpoint: 'scrape',
        createdAt: 1_700_000_000_000,
        target: 'https://example.com/a',
        apiKey: 'abcdefghijkl',
        credits: 1,
      },
      // A lockdown miss is charged and kept without its URL (lockdown counts as zero data retention).
      expect.objectContaining({ id: 'b', target: null, credits: 1 }),
    ]);
  });

  it('keeps no URL of a zero-data-retention scrape even when the row carries one', () => {
    expect(activityEvents([row({ zeroDataRetention: true })])[0].target).toBeNull();
  });
});

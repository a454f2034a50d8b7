import { jobPageEventsEnv, stableUuid } from './job-events';
import { defaultCounts } from './job-queries';
import { toJob, type RawJob } from './job-rows';
import type { JobRow } from './job.types';

const raw: RawJob = {
  id: 'j1',
  team_id: 't1',
  kind: 'crawl',
  status: 'scraping',
  url: 'https://example.com/',
  options: { limit: 10 },
  page_limit: 10,
  concurrency: 2,
  delay_ms: 0,
  webhook: null,
  zero_data_retention: false,
  discovered: 4,
  succeeded: 2,
  failed: 1,
  inflight: 1,
  credits_used: '12',
  seeded: true,
  robots_txt: null,
  error: null,
  created_at: new Date(0),
  progressed_at: new Date(1),
  expires_at: new Date(2),
  reopened: 0,
};

describe('job rows', () => {
  it('maps a row to a job: numeric credits, absent values as undefined', () => {
    const job = toJob(raw);
    expect(job).toMatchObject({ id: 'j1', teamId: 't1', pageLimit: 10, creditsUsed: 12, delayMs: 0 });
    expect(job.webhook).toBeUndefined();
    expect(job.robotsTxt).toBeUndefined();
    expect(job.error).toBeUndefined();
    expect(toJob({ ...raw, webhook: { url: 'https://hook' }, error: 'x' })).toMatchObject({
      webhook: { url: 'https://hook' },
      error: 'x',
    });
  });

  it('counts pages attempted as total and successes as completed', () => {
    const job = (p: Partial<JobRow>) => ({ ...toJob(raw), ...p });
    expect(defaultCounts(job({ discovered: 4, succeeded: 2, failed: 1 }))).toEqual({
      total: 4,
      completed: 2,
    });
    // A page counted before it was discovered (a reopened job) never makes total smaller than the results.
    expect(defaultCounts(job({ discovered: 2, succeeded: 2, failed: 1 }))).toEqual({
      total: 3,
      completed: 2,
    });
  });
});

describe('stable ids', () => {
  it('derives the same RFC 4122 version-5-shaped UUID from the same parts, another from others', () => {
    const a = stableUuid('job', 'j1', 'completed');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stableUuid('job', 'j1', 'completed')).toBe(a);
    expect(stableUuid('job', 'j1', 'failed')).not.toBe(a);
    // Parts are separated: ('ab','c') and ('a','bc') are different events.
    expect(stableUuid('ab', 'c')).not.toBe(stableUuid('a', 'bc'));
  });

  it('reads WDS_JOB_PAGE_EVENTS as webhook by default, all on request, nothing else', () => {
    expect(jobPageEventsEnv().parse(undefined)).toBe('webhook');
    expect(jobPageEventsEnv().parse('all')).toBe('all');
    expect(jobPageEventsEnv().safeParse('none').success).toBe(false);
  });
});

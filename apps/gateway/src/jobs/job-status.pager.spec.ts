import { CRAWL_RPC, JOB_STATUS_PAGE_BYTES, type JobStatusReply, type JobStatusRequest } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import { jobStatusResponse } from './job-status.pager';

/** A document JSON text of exactly `bytes` bytes. */
const doc = (bytes: number) => JSON.stringify({ markdown: 'x'.repeat(bytes - '{"markdown":""}'.length) });

/** The job service's status RPC over documents in memory, as the crawler answers it. */
function fakeJob(documents: string[], status: JobStatusReply['status']): Messaging {
  return {
    request: async (_def: unknown, q: JobStatusRequest): Promise<JobStatusReply> => {
      const items: JobStatusReply['items'] = [];
      let bytes = 0;
      for (let seq = q.skip + 1; seq <= documents.length; seq++) {
        if (q.limit !== undefined && items.length >= q.limit) break;
        const json = documents[seq - 1];
        if (items.length > 0 && bytes + json.length > q.maxBytes) break;
        items.push({ seq, bytes: json.length, json });
        bytes += json.length;
      }
      return {
        status,
        total: documents.length,
        completed: documents.length,
        creditsUsed: documents.length,
        expiresAt: '2026-01-02T00:00:00.000Z',
        items,
        stored: documents.length,
      };
    },
  } as unknown as Messaging;
}

const answer = (messaging: Messaging, query: Record<string, string> = {}) =>
  jobStatusResponse(messaging, CRAWL_RPC, {
    teamId: 'team',
    jobId: '00000000-0000-4000-8000-000000000000',
    query,
    statusUrl: new URL('http://public.example/v2/crawl/00000000-0000-4000-8000-000000000000'),
  });

describe('jobStatusResponse', () => {
  it('keeps the whole answer, counts and `next` included, within JOB_STATUS_PAGE_BYTES', async () => {
    // Ten documents whose JSON and commas alone fill the 10 MB to within 100 bytes.
    const size = Math.floor((JOB_STATUS_PAGE_BYTES - 100 - 9) / 10);
    const documents = Array.from({ length: 12 }, () => doc(size));
    const body = await answer(fakeJob(documents, 'completed'));
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(JOB_STATUS_PAGE_BYTES);
    const parsed = JSON.parse(body);
    expect(parsed.data).toHaveLength(9);
    expect(parsed.next).toBe('http://public.example/v2/crawl/00000000-0000-4000-8000-000000000000?skip=9');
  });

  it('fills a page up to the bound, not one document at a time', async () => {
    const documents = Array.from({ length: 15 }, () => doc(1_000_000));
    const first = JSON.parse(await answer(fakeJob(documents, 'completed')));
    expect(first.data).toHaveLength(10);
    const second = JSON.parse(await answer(fakeJob(documents, 'completed'), { skip: '10' }));
    expect(second.data).toHaveLength(5);
    expect(second.next).toBeNull();
  });

  it('answers one document larger than the bound alone rather than never', async () => {
    const documents = [doc(JOB_STATUS_PAGE_BYTES + 1), doc(100)];
    const parsed = JSON.parse(await answer(fakeJob(documents, 'completed')));
    expect(parsed.data).toHaveLength(1);
    expect(parsed.next).toMatch(/\?skip=1$/);
  });

  it('keeps `next` while the job runs, with the limit, and drops it once all is read', async () => {
    const documents = [doc(100), doc(100), doc(100)];
    const running = JSON.parse(await answer(fakeJob(documents, 'scraping'), { limit: '2' }));
    expect(running.data).toHaveLength(2);
    expect(new URL(running.next).search).toBe('?skip=2&limit=2');
    const done = JSON.parse(await answer(fakeJob(documents, 'completed'), { skip: '2', limit: '2' }));
    expect(done.data).toHaveLength(1);
    expect(done.next).toBeNull();
  });
});

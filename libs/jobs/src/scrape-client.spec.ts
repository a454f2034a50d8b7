import { gzipSync } from 'node:zlib';
import { ErrorCode, SCRAPE_RPC, ServiceError, type Document } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import { creditsOwedByFailure, SCRAPE_REPLY_MARGIN_MS, ScrapeClient } from './scrape-client';

/** The scraper's side of the RPCs the client uses, in memory: records each request in order. */
class ScraperDouble {
  readonly calls: { subject: string; payload: Record<string, unknown>; timeoutMs?: number }[] = [];
  constructor(private readonly chunks: string[] = []) {}

  get messaging(): Messaging {
    return {
      request: async (
        def: { subject: string },
        payload: Record<string, unknown>,
        opts?: { timeoutMs?: number },
      ) => {
        this.calls.push({ subject: def.subject, payload, timeoutMs: opts?.timeoutMs });
        if (def.subject === SCRAPE_RPC.documentChunk.subject) {
          return { data: this.chunks[payload.index as number] };
        }
        return { creditsUsed: 1 };
      },
    } as unknown as Messaging;
  }
}

const doc: Document = {
  markdown: '# Hello',
  metadata: { statusCode: 200, sourceURL: 'https://example.com/' },
};

describe('ScrapeClient', () => {
  it('returns an inline document as it is, with no further request', async () => {
    const scraper = new ScraperDouble();
    expect(await new ScrapeClient(scraper.messaging).document('t', { document: doc })).toBe(doc);
    expect(scraper.calls).toHaveLength(0);
  });

  it('reads a document by reference chunk by chunk, in order, and parses it', async () => {
    const gz = gzipSync(Buffer.from(JSON.stringify(doc)));
    const third = Math.ceil(gz.length / 3);
    const chunks = [0, 1, 2].map((i) => gz.subarray(i * third, (i + 1) * third).toString('base64'));
    const scraper = new ScraperDouble(chunks);
    const got = await new ScrapeClient(scraper.messaging).document('team-1', {
      documentRef: { jobId: 'job-1', chunks: 3, bytes: gz.length },
    } as never);
    expect(got).toEqual(doc);
    expect(scraper.calls.map((c) => c.payload)).toEqual([
      { teamId: 'team-1', jobId: 'job-1', index: 0 },
      { teamId: 'team-1', jobId: 'job-1', index: 1 },
      { teamId: 'team-1', jobId: 'job-1', index: 2 },
    ]);
  });

  it('fails as INTERNAL when a reply carries neither a document nor a reference', async () => {
    await expect(new ScrapeClient(new ScraperDouble().messaging).document('t', {})).rejects.toMatchObject({
      code: ErrorCode.INTERNAL,
    });
  });

  it("waits the scrape's own timeout plus the scraper's answer margin", async () => {
    const scraper = new ScraperDouble();
    await new ScrapeClient(scraper.messaging).run({
      teamId: 't',
      requestId: 'r',
      jobId: 'j',
      options: { timeout: 30_000 },
    } as never);
    expect(scraper.calls[0]).toMatchObject({
      subject: SCRAPE_RPC.run.subject,
      timeoutMs: 30_000 + SCRAPE_REPLY_MARGIN_MS,
    });
  });
});

describe('creditsOwedByFailure', () => {
  it('reads the credits a failed scrape still costs from its details, else 0', () => {
    expect(creditsOwedByFailure(new ServiceError(ErrorCode.NOT_FOUND, 'miss', { creditsUsed: 1 }))).toBe(1);
    expect(creditsOwedByFailure(new ServiceError(ErrorCode.NOT_FOUND, 'miss', { creditsUsed: 0 }))).toBe(0);
    expect(creditsOwedByFailure(new ServiceError(ErrorCode.NOT_FOUND, 'miss', { creditsUsed: '5' }))).toBe(0);
    expect(creditsOwedByFailure(new ServiceError(ErrorCode.INTERNAL, 'boom'))).toBe(0);
    expect(creditsOwedByFailure(new Error('boom'))).toBe(0);
  });
});

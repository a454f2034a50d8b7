import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { packHitBatch, SCRAPE_HITS, STREAMS, type ScrapeHitRecord } from '@wds/contracts';
import { startNats, type RunningServer } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { StreamPendingHits } from '../../src/scrape/storage/pending-hits';
import { ScrapeStore, type ScrapeRecord, type StoredScrape } from '../../src/scrape/storage/scrape-store';
import { DocumentDelivery } from '../../src/scrape/use-cases/document-delivery';
import { GetScrapeUseCase } from '../../src/scrape/use-cases/get-scrape.usecase';
import { StoreHitsUseCase } from '../../src/scrape/use-cases/store-hits.usecase';

/** The job rows in memory: this suite is about the stream, not PostgreSQL. */
class MemoryScrapeStore extends ScrapeStore {
  readonly rows = new Map<string, ScrapeRecord>();
  async insert(r: ScrapeRecord): Promise<void> {
    if (!this.rows.has(r.id)) this.rows.set(r.id, r);
  }
  async find(id: string): Promise<StoredScrape | undefined> {
    const r = this.rows.get(id);
    return (
      r && {
        teamId: r.teamId,
        status: r.status,
        zeroDataRetention: r.zeroDataRetention,
        documentGz: r.documentGz,
        metadataPatch: r.metadataPatch,
      }
    );
  }
  async readDocumentRange(): Promise<undefined> {
    return undefined;
  }
  async forgetDocument(): Promise<void> {}
  async purgeExpired(): Promise<number> {
    return 0;
  }
}

describe('hits answered by a gateway, still in the stream', () => {
  let nats: RunningServer;
  let client: Messaging;
  const doc = { markdown: '# Cached', metadata: { title: 'Cached', statusCode: 200 } };
  const hit = (jobId: string, teamId = 'team-a'): ScrapeHitRecord => ({
    teamId,
    jobId,
    url: 'https://example.com/a',
    fetchedAt: Date.UTC(2026, 0, 1),
    creditsUsed: 1,
    statusCode: 200,
    documentGz: gzipSync(JSON.stringify(doc)).toString('base64'),
  });

  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-pending-hits-'));
    nats = await startNats({ dataDir: path.join(dir, 'nats') });
    client = await Messaging.connect({
      servers: nats.url,
      name: 'pending-hits-test',
      logger: createLogger({ service: 'test', level: 'fatal' }),
    });
    await client.ensureStreams([STREAMS.WDS_SCRAPE_HITS_V1]);
  });
  afterAll(async () => {
    await client?.drain();
    await nats?.stop();
  });

  it('finds the pending batch of a job, and GET stores it and answers the hit', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await client.publish(SCRAPE_HITS, packHitBatch([hit(a)]), { msgId: randomUUID() });
    const other = {
      ...hit(c, 'team-b'),
      documentGz: gzipSync(JSON.stringify({ markdown: '# C' })).toString('base64'),
    };
    await client.publish(SCRAPE_HITS, packHitBatch([hit(b), other]), { msgId: randomUUID() });
    // The first batch was stored and acked meanwhile: it left the work queue.
    const first = (await client.jsm.streams.info(STREAMS.WDS_SCRAPE_HITS_V1.name)).state.first_seq;
    await client.jsm.streams.deleteMessage(STREAMS.WDS_SCRAPE_HITS_V1.name, first);

    const pending = new StreamPendingHits(client);
    expect(await pending.find(a)).toBeUndefined();
    expect((await pending.find(c))?.hits.map((h) => h.jobId)).toEqual([b, c]);
    expect(await pending.find(randomUUID())).toBeUndefined();

    const store = new MemoryScrapeStore();
    const storeHits = new StoreHitsUseCase(
      new DocumentDelivery(store, { retentionMs: 60_000, transientMs: 60_000 }),
    );
    const get = new GetScrapeUseCase(store, { pending, store: storeHits });
    const answer = await get.execute({ teamId: 'team-a', jobId: b });
    expect(answer.document).toEqual({
      markdown: '# Cached',
      metadata: {
        title: 'Cached',
        statusCode: 200,
        scrapeId: b,
        cacheState: 'hit',
        cachedAt: '2026-01-01T00:00:00.000Z',
        creditsUsed: 1,
      },
    });
    // The whole batch became rows, each with its own document; the other team's job is still its own.
    expect([...store.rows.keys()].sort()).toEqual([b, c].sort());
    expect(gunzipSync(store.rows.get(c)!.documentGz!).toString()).toBe('{"markdown":"# C"}');
    await expect(get.execute({ teamId: 'team-a', jobId: c })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(get.execute({ teamId: 'team-a', jobId: a })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

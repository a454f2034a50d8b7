import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CommonEnv } from '@wds/config';
import {
  Document,
  SCRAPE_RPC,
  ScrapeRequest,
  type ScrapeRequestInput,
  type ScrapeResultReply,
} from '@wds/contracts';
import { startNats, type RunningServer } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { bootstrapService, type RunningService } from '@wds/service-kit';
import { createTestDatabase } from '@wds/testing';
import { scrapeEnvShape } from '../../src/scrape/scrape.config';
import { ScrapeModule } from '../../src/scrape/scrape.module';
import { SCRAPER_STREAMS } from '../../src/streams';

export interface ScraperHarness {
  service: RunningService;
  client: Messaging;
  /** Runs POST /v2/scrape's RPC and returns the reply with the document resolved (chunks read). */
  scrape(teamId: string, options: ScrapeRequestInput): Promise<ScrapeResultReply & { document: Document }>;
  /** The raw RPC reply (document inline or by reference). */
  scrapeRaw(teamId: string, options: ScrapeRequestInput): Promise<ScrapeResultReply>;
  readChunks(teamId: string, ref: NonNullable<ScrapeResultReply['documentRef']>): Promise<Document>;
  stop(): Promise<void>;
}

/**
 * One scraper (the real Nest module, bootstrap, migrations) on its own nats-server: the RPC queue
 * group must not be shared with scrapers of other suites, which run with other allow-lists.
 */
export async function startScraper(env: Record<string, string> = {}): Promise<ScraperHarness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-scraper-test-'));
  const nats: RunningServer = await startNats({ dataDir: path.join(dir, 'nats') });
  const db = await createTestDatabase('scraper');
  const service = await bootstrapService({
    kind: 'scraper',
    module: ScrapeModule,
    configSchema: CommonEnv.extend(scrapeEnvShape),
    migrations: { schema: 'scraper', dir: path.join(__dirname, '../../migrations') },
    streams: SCRAPER_STREAMS,
    env: { NATS_URL: nats.url, DATABASE_URL: db.url, HEALTH_PORT: '0', LOG_LEVEL: 'fatal', ...env },
  });
  const client = await Messaging.connect({
    servers: nats.url,
    name: 'scraper-test-client',
    logger: createLogger({ service: 'test', level: 'fatal' }),
  });

  const scrapeRaw = (teamId: string, options: ScrapeRequestInput) => {
    const parsed = ScrapeRequest.parse(options);
    return client.request(
      SCRAPE_RPC.run,
      { teamId, requestId: randomUUID(), jobId: randomUUID(), options: parsed },
      // LLM formats on a CPU model may use a long scrape timeout.
      { timeoutMs: Math.max(90_000, parsed.timeout + 30_000) },
    );
  };

  const readChunks = async (teamId: string, ref: NonNullable<ScrapeResultReply['documentRef']>) => {
    const parts: Buffer[] = [];
    for (let index = 0; index < ref.chunks; index++) {
      const chunk = await client.request(SCRAPE_RPC.documentChunk, { teamId, jobId: ref.jobId, index });
      parts.push(Buffer.from(chunk.data, 'base64'));
    }
    return Document.parse(JSON.parse(gunzipSync(Buffer.concat(parts)).toString('utf8')));
  };

  return {
    service,
    client,
    scrapeRaw,
    readChunks,
    scrape: async (teamId, options) => {
      const reply = await scrapeRaw(teamId, options);
      const document = reply.document ?? (await readChunks(teamId, reply.documentRef!));
      return { ...reply, document };
    },
    stop: async () => {
      await client.drain();
      await service.stop();
      await db.drop();
      await nats.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

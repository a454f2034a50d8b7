import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Objm } from '@nats-io/obj';
import {
  ARTIFACTS_BUCKET,
  BROWSER_POOL_RPC,
  type Artifact,
  type BrowserRenderReply,
  type BrowserRenderRequestInput,
} from '@wds/contracts';
import { startNats, type RunningServer } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { bootstrapService, type RunningService } from '@wds/service-kit';
import { createTestDatabase } from '@wds/testing';
import { browserPoolServiceOptions } from '../../src/browser-pool.service-options';
import { BrowserPoolConfig } from '../../src/config';

export interface PoolHarness {
  service: RunningService<BrowserPoolConfig>;
  client: Messaging;
  natsUrl: string;
  render(
    req: Omit<BrowserRenderRequestInput, 'jobId' | 'teamId' | 'timeoutMs'> & {
      teamId?: string;
      jobId?: string;
      timeoutMs?: number;
    },
  ): Promise<BrowserRenderReply>;
  /** Bytes of a stored artifact (or the inline base64). */
  artifact(a: Artifact): Promise<Buffer>;
  stop(): Promise<void>;
}

/** The real browser-pool service (one warm browser) on its own nats-server and database. */
export async function startBrowserPool(env: Record<string, string> = {}): Promise<PoolHarness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-browser-pool-test-'));
  const nats: RunningServer = await startNats({ dataDir: path.join(dir, 'nats') });
  const db = await createTestDatabase('browser_pool');
  const service = await bootstrapService(
    browserPoolServiceOptions({
      NATS_URL: nats.url,
      DATABASE_URL: db.url,
      HEALTH_PORT: '0',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'fatal',
      WDS_BROWSER_PROCESSES: '1',
      WDS_BROWSER_LAUNCH_STAGGER_MS: '0',
      SHUTDOWN_GRACE_MS: '5000',
      ...env,
    }),
  );
  const client = await Messaging.connect({
    servers: nats.url,
    name: 'browser-pool-test-client',
    logger: createLogger({ service: 'test', level: 'fatal' }),
  });
  const objm = new Objm(client.js);
  return {
    service,
    client,
    natsUrl: nats.url,
    render: (req) =>
      client.request(
        BROWSER_POOL_RPC.render,
        { teamId: 'team-a', jobId: crypto.randomUUID(), timeoutMs: 20_000, ...req },
        { timeoutMs: 30_000 },
      ),
    artifact: async (a) => {
      if (a.base64 !== undefined) return Buffer.from(a.base64, 'base64');
      const store = await objm.open(ARTIFACTS_BUCKET);
      const data = await store.getBlob(a.id!);
      if (!data) throw new Error(`artifact ${a.id} not found`);
      return Buffer.from(data);
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

/** Width and height from a PNG (IHDR) or JPEG (SOFn) header. */
export function imageSize(buf: Buffer): { type: 'png' | 'jpeg'; width: number; height: number } {
  if (buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { type: 'png', width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf[0] === 0xff && buf[1] === 0xd8) {
    let i = 2;
    while (i < buf.length) {
      if (buf[i] !== 0xff) throw new Error('corrupt JPEG');
      const marker = buf[i + 1];
      const len = buf.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { type: 'jpeg', height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
      }
      i += 2 + len;
    }
  }
  throw new Error('not a PNG or JPEG image');
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createLogger } from '@wds/observability';
import { startNats, type RunningServer } from '@wds/local-infra';
import { Messaging, natsServers } from '../src';

const logger = createLogger({ service: 'nats-auth-test', level: 'silent' });

describe('NATS_URL credentials', () => {
  it('takes a token or a user and password out of the URLs', () => {
    expect(natsServers('nats://127.0.0.1:4222')).toEqual({ servers: ['nats://127.0.0.1:4222'] });
    expect(natsServers('nats://s3cret@127.0.0.1:4222, nats://s3cret@127.0.0.1:4223')).toEqual({
      servers: ['nats://127.0.0.1:4222', 'nats://127.0.0.1:4223'],
      token: 's3cret',
    });
    expect(natsServers('nats://wds:p%40ss@nats:4222')).toEqual({
      servers: ['nats://nats:4222'],
      user: 'wds',
      pass: 'p@ss',
    });
    expect(natsServers('tok@127.0.0.1:4222')).toEqual({ servers: ['127.0.0.1:4222'], token: 'tok' });
    expect(() => natsServers('nats://a@h1:4222,nats://b@h2:4222')).toThrow(/same credentials/);
  });

  describe('against a nats-server that requires a token (real NATS)', () => {
    let dir: string;
    let nats: RunningServer;

    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-nats-auth-'));
      nats = await startNats({ dataDir: dir, token: randomBytes(24).toString('hex') });
    });

    afterAll(async () => {
      await nats?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('connects with the URL startNats returns and is refused without the token or with another', async () => {
      expect(nats.url).toMatch(/^nats:\/\/[0-9a-f]{48}@127\.0\.0\.1:\d+$/);
      const ok = await Messaging.connect({ servers: nats.url, name: 'auth-ok', logger });
      try {
        expect(ok.isConnected()).toBe(true);
        await ok.nc.flush();
      } finally {
        await ok.drain();
      }
      await expect(
        Messaging.connect({ servers: `nats://127.0.0.1:${nats.port}`, name: 'auth-none', logger }),
      ).rejects.toThrow(/authorization/i);
      await expect(
        Messaging.connect({
          servers: `nats://${'x'.repeat(48)}@127.0.0.1:${nats.port}`,
          name: 'auth-bad',
          logger,
        }),
      ).rejects.toThrow(/authorization/i);
      // The config file holding the token is readable by its owner only.
      expect(fs.statSync(path.join(dir, 'nats-server.conf')).mode & 0o077).toBe(0);
    });
  });
});

import { Inject, Injectable, Module } from '@nestjs/common';
import { ConfigError } from '@wds/config';
import { Database } from '@wds/database';
import { Messaging } from '@wds/messaging';
import { createLogger, type Logger } from '@wds/observability';
import { createTestDatabase, testNatsUrl } from '@wds/testing';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_CONFIG, LOGGER, bootstrapService, discoverInstances, type RunningService } from '../src';

@Injectable()
class Probe {
  constructor(
    @Inject(APP_CONFIG) readonly config: { WDS_INSTANCE_ID: string },
    @Inject(LOGGER) readonly logger: Logger,
    @Inject(Messaging) readonly messaging: Messaging,
    @Inject(Database) readonly database: Database,
  ) {}
}

@Module({ providers: [Probe] })
class TinyModule {}

describe('bootstrapService (real NATS and PostgreSQL)', () => {
  let testDb: { url: string; drop: () => Promise<void> };
  let observer: Messaging;
  let migrationsDir: string;
  const started: RunningService[] = [];

  const env = (extra: Record<string, string> = {}) => ({
    NATS_URL: testNatsUrl(),
    DATABASE_URL: testDb.url,
    HEALTH_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...extra,
  });

  beforeAll(async () => {
    testDb = await createTestDatabase('skt');
    observer = await Messaging.connect({
      servers: testNatsUrl(),
      name: 'observer',
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    migrationsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-skmig-'));
    fs.writeFileSync(path.join(migrationsDir, '0001_init.sql'), 'CREATE TABLE things (id int);');
  });

  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
    await observer.drain();
    await testDb.drop();
    fs.rmSync(migrationsDir, { recursive: true, force: true });
  });

  it('starts a module with injected platform providers, probes, migrations and discovery', async () => {
    const svc = await bootstrapService({
      kind: 'crawler',
      module: TinyModule,
      migrations: { schema: 'kit_test', dir: migrationsDir },
      env: env({ WDS_INSTANCE_ID: 'crawler-test-1' }),
    });
    started.push(svc);

    const probe = svc.app.get(Probe);
    expect(probe.config.WDS_INSTANCE_ID).toBe('crawler-test-1');
    expect(probe.messaging).toBe(svc.messaging);
    expect(probe.database).toBe(svc.database);
    expect(typeof probe.logger.info).toBe('function');

    const live = await fetch(`${svc.healthUrl}/live`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${svc.healthUrl}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { nats: 'up', postgres: 'up' }, down: [] });

    const { rows } = await svc.database.query("SELECT to_regclass('kit_test.things') AS t");
    expect(rows[0].t).toBe('kit_test.things');

    const found = await discoverInstances(observer, { timeoutMs: 300 });
    const mine = found.find((i) => i.instanceId === 'crawler-test-1');
    expect(mine).toMatchObject({ kind: 'crawler', version: '0.1.0', healthUrl: svc.healthUrl });
    expect(mine?.startedAt).toEqual(expect.any(String));

    await svc.stop();
    const after = await discoverInstances(observer, { timeoutMs: 300 });
    expect(after.find((i) => i.instanceId === 'crawler-test-1')).toBeUndefined();
    await expect(fetch(`${svc.healthUrl}/live`)).rejects.toThrow();
  });

  it('reports not ready, naming PostgreSQL, when the database is unreachable', async () => {
    const svc = await bootstrapService({
      kind: 'webhooks',
      module: TinyModule,
      env: env({ DATABASE_URL: 'postgres://wds:wds@127.0.0.1:1/none', WDS_MIGRATE_ON_START: 'false' }),
    });
    started.push(svc);
    expect((await fetch(`${svc.healthUrl}/live`)).status).toBe(200);
    const ready = await fetch(`${svc.healthUrl}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      status: 'unavailable',
      checks: { nats: 'up', postgres: 'down' },
      down: ['postgres'],
    });
    await svc.stop();
  });

  it('fails fast with every bad variable listed', async () => {
    const err = await bootstrapService({
      kind: 'batch',
      module: TinyModule,
      env: env({ HEALTH_PORT: 'x', LOG_LEVEL: 'chatty' }),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.split(':')[0]).sort()).toEqual([
      'HEALTH_PORT',
      'LOG_LEVEL',
    ]);
  });
});

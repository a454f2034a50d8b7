import { EventEmitter } from 'node:events';
import { ServiceError } from '@wds/contracts';
import { createLogger } from '@wds/observability';
import type { Browser } from 'playwright-core';
import { BrowserLauncher, type LaunchedBrowser } from './browser-launcher';
import { BrowserPool, type ContextFactory, type PoolSettings } from './browser-pool';
import type { ProcessTable } from './process-memory';

class FakeBrowser extends EventEmitter {
  connected = true;
  isConnected() {
    return this.connected;
  }
  async close() {
    this.connected = false;
    this.emit('disconnected');
  }
  crash() {
    this.connected = false;
    this.emit('disconnected');
  }
}

class FakeLauncher extends BrowserLauncher {
  readonly launched: FakeBrowser[] = [];
  async launch(): Promise<LaunchedBrowser> {
    const b = new FakeBrowser();
    this.launched.push(b);
    return { browser: b as unknown as Browser, pid: 1000 + this.launched.length };
  }
}

const contexts: ContextFactory<{ browser: FakeBrowser }> = {
  create: async (browser) => ({ browser: browser as unknown as FakeBrowser }),
  close: async () => undefined,
};

function pool(settings: Partial<PoolSettings> = {}, pss = 0) {
  const launcher = new FakeLauncher();
  const processes: ProcessTable = { children: async () => [], treePssBytes: async () => pss };
  const p = new BrowserPool(
    {
      instanceId: 't',
      browsers: 1,
      capacity: 2,
      recycleAfterJobs: 100,
      recycleAboveBytes: 1e9,
      launchStaggerMs: 0,
      memoryCheckIntervalMs: 0,
      ...settings,
    },
    launcher,
    contexts,
    processes,
    createLogger({ service: 'test', level: 'silent' }),
  );
  return { p, launcher };
}

const spec = () => ({ options: {}, deadline: Date.now() + 5000 });
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('BrowserPool', () => {
  it('refuses work beyond capacity at once with CONCURRENCY_LIMITED and Retry-After', async () => {
    const { p } = pool({ capacity: 2 });
    await p.start();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const running = [p.run(spec(), () => gate), p.run(spec(), () => gate)];
    await settle();
    const refused = await p.run(spec(), async () => 'never').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ code: 'CONCURRENCY_LIMITED', retryAfterSeconds: 1 });
    expect(p.stats()).toMatchObject({ activeContexts: 2, capacity: 2, rejected: 1 });
    release();
    await Promise.all(running);
    expect(p.stats().activeContexts).toBe(0);
    await p.drain(100);
  });

  it('replaces a crashed browser and runs the job that lost it again', async () => {
    const { p, launcher } = pool();
    await p.start();
    let attempts = 0;
    const result = await p.run(spec(), async ({ browser }) => {
      attempts++;
      if (attempts === 1) {
        browser.crash();
        throw new Error('Target closed');
      }
      return 'done';
    });
    expect(result).toBe('done');
    expect(launcher.launched).toHaveLength(2);
    expect(p.stats()).toMatchObject({ crashes: 1, browsers: 1 });
    await p.drain(100);
  });

  it('queued work waits for the replacement instead of failing', async () => {
    const { p, launcher } = pool();
    await p.start();
    launcher.launched[0].crash();
    const r = await p.run(spec(), async ({ browser }) => browser === (launcher.launched[1] as unknown));
    expect(r).toBe(true);
    await p.drain(100);
  });

  it('recycles a browser after N jobs and above the memory threshold', async () => {
    const byJobs = pool({ recycleAfterJobs: 2 });
    await byJobs.p.start();
    for (let i = 0; i < 3; i++) await byJobs.p.run(spec(), async () => undefined);
    await settle();
    expect(byJobs.launcher.launched[0].connected).toBe(false);
    expect(byJobs.p.stats()).toMatchObject({ recycled: 1, crashes: 0, browsers: 1 });
    await byJobs.p.drain(100);

    const byMemory = pool({ recycleAboveBytes: 100 }, 200);
    await byMemory.p.start();
    await byMemory.p.run(spec(), async () => undefined);
    await settle();
    expect(byMemory.p.stats().recycled).toBe(1);
    await byMemory.p.drain(100);
  });

  it('drains: refuses new work, lets running work finish, closes the browsers', async () => {
    const { p, launcher } = pool();
    await p.start();
    const running = p.run(spec(), () => new Promise((r) => setTimeout(() => r('finished'), 100)));
    await settle();
    const drained = p.drain(2000);
    await expect(p.run(spec(), async () => 'x')).rejects.toMatchObject({ code: 'CONCURRENCY_LIMITED' });
    await expect(running).resolves.toBe('finished');
    await drained;
    expect(launcher.launched[0].connected).toBe(false);
  });
});

import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { metrics } from '@opentelemetry/api';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER, Periodic } from '@wds/service-kit';
import { ObjectStoreArtifacts, ArtifactStore } from '../artifacts/artifact-store';
import type { BrowserPoolConfig } from '../config';
import { BrowserPool } from '../pool/browser-pool';
import { ReplayStore } from '../replay/replay-store';
import type { JobContext } from './job-context';
import { PolicyProxy } from './policy-proxy';

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Starts the pool (its RPCs are `RenderController`'s, bound by the WDS transport once the pool has
 * started), exports capacity metrics, and drains on shutdown: new work is refused (callers retry another replica), running jobs
 * finish within SHUTDOWN_GRACE_MS, then the browsers close before NATS drains.
 */
@Injectable()
export class RenderServer implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly purging: Periodic;

  constructor(
    private readonly pool: BrowserPool<JobContext>,
    private readonly replay: ReplayStore,
    private readonly artifacts: ArtifactStore,
    private readonly proxy: PolicyProxy,
    @Inject(APP_CONFIG) private readonly config: BrowserPoolConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.purging = new Periodic({
      everyMs: PURGE_INTERVAL_MS,
      run: () => this.purge(),
      logger,
      what: 'purging replay contexts',
    });
  }

  async onModuleInit(): Promise<void> {
    if (this.artifacts instanceof ObjectStoreArtifacts) await this.artifacts.open();
    await this.proxy.start();
    await this.pool.start();
  }

  onApplicationBootstrap(): void {
    this.exportMetrics();
    this.purging.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.purging.stop();
    await this.pool.drain(this.config.SHUTDOWN_GRACE_MS);
    await this.proxy.close();
  }

  private exportMetrics(): void {
    const meter = metrics.getMeter('wds-browser-pool');
    const gauge = (name: string, description: string, read: () => number) =>
      meter.createObservableGauge(name, { description }).addCallback((r) => r.observe(read()));
    gauge(
      'wds.browser_pool.capacity',
      'Concurrent contexts this replica accepts',
      () => this.pool.stats().capacity,
    );
    gauge('wds.browser_pool.contexts.active', 'Live job contexts', () => this.pool.stats().activeContexts);
    gauge('wds.browser_pool.browsers', 'Running browser processes', () => this.pool.stats().browsers);
    gauge('wds.browser_pool.crashes', 'Browsers lost since start', () => this.pool.stats().crashes);
    gauge(
      'wds.browser_pool.proxy.blocked',
      'Connections refused by the network policy',
      () => this.proxy.blocked,
    );
    gauge(
      'wds.browser_pool.rejected',
      'Jobs refused at capacity since start',
      () => this.pool.stats().rejected,
    );
  }

  private async purge(): Promise<void> {
    const purged = await this.replay.purgeExpired();
    if (purged > 0) this.logger.info({ purged }, 'purged expired replay contexts');
  }
}

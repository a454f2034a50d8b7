import { Module } from '@nestjs/common';
import { Database } from '@wds/database';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { NetworkPolicy } from '@wds/outbound';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import { ArtifactStore, InlineArtifacts, ObjectStoreArtifacts } from '../artifacts/artifact-store';
import type { BrowserPoolConfig } from '../config';
import { ChromiumLauncher } from '../pool/browser-launcher';
import { BrowserPool } from '../pool/browser-pool';
import { LinuxProcessTable } from '../pool/process-memory';
import { PgProfileStore, ProfileStore } from '../profiles/profile-store';
import { PgReplayStore, ReplayStore } from '../replay/replay-store';
import { AdBlocker, filterListsFor } from './ad-blocker';
import { ConsentHandler } from './consent';
import { contextSpecFor } from './context-options';
import { cachingResolver } from './dns-cache';
import { JobContextFactory, type JobContext } from './job-context';
import { PageRenderer } from './page-renderer';
import { RenderPageUseCase } from './render-page.usecase';
import { PolicyProxy } from './policy-proxy';
import { RenderController } from './render.controller';
import { RenderServer } from './render.server';

const HOUR = 3600 * 1000;

/** Context options of a request with default emulation: contexts for it are created ahead of time. */
export const DEFAULT_SPEC = contextSpecFor({
  mobile: false,
  skipTlsVerification: true,
  location: { country: 'US' },
});

@Module({
  controllers: [RenderController],
  providers: [
    {
      provide: AdBlocker,
      inject: [APP_CONFIG, LOGGER],
      useFactory: (c: BrowserPoolConfig, logger: Logger) => {
        const { lists, fallback } = filterListsFor(c.WDS_BROWSER_FILTER_LISTS);
        const blocker = AdBlocker.fromFiles(lists);
        if (fallback) {
          logger.warn(
            { lists },
            'EasyList/EasyPrivacy not installed (Debian package webext-ublock-origin-chromium): blocking ads with the small bundled list',
          );
        } else logger.info({ lists, lines: blocker.lines }, 'ad and tracker filter lists loaded');
        return blocker;
      },
    },
    { provide: ConsentHandler, useFactory: () => ConsentHandler.load() },
    {
      provide: NetworkPolicy,
      inject: [APP_CONFIG],
      useFactory: (c: BrowserPoolConfig) =>
        new NetworkPolicy({ allowlist: c.WDS_PRIVATE_NETWORK_ALLOWLIST, resolve: cachingResolver() }),
    },
    {
      provide: PolicyProxy,
      inject: [NetworkPolicy, LOGGER],
      useFactory: (policy: NetworkPolicy, logger: Logger) =>
        new PolicyProxy(policy, logger.child({ component: 'policy-proxy' })),
    },
    {
      provide: BrowserPool,
      inject: [APP_CONFIG, AdBlocker, NetworkPolicy, PolicyProxy, LOGGER],
      useFactory: (
        c: BrowserPoolConfig,
        blocker: AdBlocker,
        policy: NetworkPolicy,
        proxy: PolicyProxy,
        logger: Logger,
      ) => {
        const processes = new LinuxProcessTable();
        if (!c.WDS_CHROMIUM_PATH.includes('headless-shell')) {
          logger.warn(
            { chromium: c.WDS_CHROMIUM_PATH },
            'full Chromium: each context costs ~2x the memory and ~3x the CPU of the headless shell (Debian package chromium-headless-shell)',
          );
        }
        return new BrowserPool<JobContext>(
          {
            instanceId: c.WDS_INSTANCE_ID,
            browsers: c.WDS_BROWSER_PROCESSES,
            capacity: c.WDS_BROWSER_CAPACITY,
            recycleAfterJobs: c.WDS_BROWSER_RECYCLE_JOBS,
            recycleAboveBytes: c.WDS_BROWSER_RECYCLE_MB * 1024 * 1024,
            launchStaggerMs: c.WDS_BROWSER_LAUNCH_STAGGER_MS,
          },
          new ChromiumLauncher(c.WDS_CHROMIUM_PATH, processes, () => proxy.url),
          new JobContextFactory(policy, blocker),
          processes,
          logger.child({ component: 'browser-pool' }),
          c.WDS_BROWSER_SPARE_CONTEXT ? { key: DEFAULT_SPEC.key!, options: DEFAULT_SPEC.options } : undefined,
        );
      },
    },
    {
      provide: ArtifactStore,
      inject: [APP_CONFIG, Messaging],
      useFactory: (c: BrowserPoolConfig, messaging: Messaging) =>
        c.WDS_ARTIFACTS_STORE
          ? new ObjectStoreArtifacts(messaging, c.WDS_ARTIFACT_TTL_HOURS * HOUR)
          : new InlineArtifacts(),
    },
    { provide: ProfileStore, inject: [Database], useFactory: (db: Database) => new PgProfileStore(db) },
    { provide: ReplayStore, inject: [Database], useFactory: (db: Database) => new PgReplayStore(db) },
    {
      provide: RenderPageUseCase,
      inject: [
        APP_CONFIG,
        BrowserPool,
        AdBlocker,
        ConsentHandler,
        NetworkPolicy,
        PolicyProxy,
        ArtifactStore,
        ProfileStore,
        ReplayStore,
        LOGGER,
      ],
      useFactory: (
        c: BrowserPoolConfig,
        pool: BrowserPool<JobContext>,
        blocker: AdBlocker,
        consent: ConsentHandler,
        policy: NetworkPolicy,
        proxy: PolicyProxy,
        artifacts: ArtifactStore,
        profiles: ProfileStore,
        replay: ReplayStore,
        logger: Logger,
      ) =>
        new RenderPageUseCase(
          pool,
          new PageRenderer(
            { quietMs: c.WDS_BROWSER_IDLE_MS, capMs: c.WDS_BROWSER_IDLE_CAP_MS },
            policy,
            blocker.noticeSelectors,
            consent,
          ),
          artifacts,
          profiles,
          replay,
          proxy,
          { replayRetentionMs: c.WDS_REPLAY_RETENTION_HOURS * HOUR },
          logger.child({ component: 'render' }),
        ),
    },
    RenderServer,
  ],
  exports: [PolicyProxy, ProfileStore, ReplayStore, BrowserPool, ArtifactStore],
})
export class RenderModule {}

import fs from 'node:fs';
import path from 'node:path';
import { Module } from '@nestjs/common';
import { reportTokens } from '@wds/credits';
import { Database } from '@wds/database';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { BrowserPoolConfig } from '../config';
import { ProfileStore } from '../profiles/profile-store';
import { PolicyProxy } from '../render/policy-proxy';
import { RenderModule } from '../render/render.module';
import { ReplayStore } from '../replay/replay-store';
import type { Mount } from '../sandbox/bwrap';
import { moduleMount } from '../sandbox/code-sandbox';
import { SessionBilling } from './session-billing';
import { SessionEndpoint } from './session-endpoint';
import { SessionManager } from './session-manager';
import { AgentModule } from '../agent/agent.module';
import { AgentViews } from '../agent/agent-views';
import { BrowserAgent } from '../agent/browser-agent';
import { PromptSessionUseCase } from './session-prompt';
import { DEFAULT_RECORDING_SETTINGS, ffmpegOnPath, type RecordingSettings } from './session-recorder';
import { ArtifactStore, ObjectStoreArtifacts } from '../artifacts/artifact-store';
import { SessionStore } from './session-store';
import { SessionsServer } from './sessions.server';

/** The sandbox's worker script (plain JavaScript, run by the sandbox's node). */
export const SANDBOX_ASSETS = path.join(__dirname, '..', '..', 'assets', 'sandbox');

/**
 * What the code sandboxes see under /opt/wds (read-only): the worker scripts and the modules they
 * need, Playwright for Python (when provisioned) and agent-browser's Linux binary (when installed).
 */
function runtimeMounts(pythonPath: string, logger: Logger): Mount[] {
  const mounts: Mount[] = [
    { from: path.join(SANDBOX_ASSETS, 'worker.js'), to: '/opt/wds/worker.js' },
    { from: path.join(SANDBOX_ASSETS, 'worker.py'), to: '/opt/wds/worker.py' },
    { from: path.join(SANDBOX_ASSETS, 'bin'), to: '/opt/wds/bin' },
    moduleMount('playwright-core'),
    moduleMount('acorn'),
  ];
  if (fs.existsSync(path.join(pythonPath, 'playwright')))
    mounts.push({ from: pythonPath, to: '/opt/wds/python' });
  else logger.warn({ pythonPath }, 'Playwright for Python is not installed: python code in sessions fails');
  const agentBrowser = agentBrowserBinary();
  if (agentBrowser) mounts.push({ from: agentBrowser, to: '/opt/wds/libexec/agent-browser' });
  else logger.warn('agent-browser is not installed for this platform: its command fails in bash code');
  return mounts;
}

/** The native binary the npm package `agent-browser` ships for this platform. */
function agentBrowserBinary(): string | undefined {
  try {
    const dir = path.dirname(require.resolve('agent-browser/package.json'));
    const file = path.join(dir, 'bin', `agent-browser-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}`);
    if (!fs.existsSync(file)) return undefined;
    // npm may not have run the package's install script (which marks the binary executable).
    if ((fs.statSync(file).mode & 0o111) === 0) fs.chmodSync(file, 0o755);
    return file;
  } catch {
    return undefined;
  }
}

/** Whether sessions can be recorded here (the artifacts bucket and ffmpeg), and how. */
function recording(
  c: BrowserPoolConfig,
  artifacts: ArtifactStore,
): {
  recording?: { sink: ObjectStoreArtifacts; settings: RecordingSettings; interact: boolean };
  recordingUnavailable?: string;
} {
  if (!(artifacts instanceof ObjectStoreArtifacts))
    return { recordingUnavailable: 'recordings are kept in the artifacts store (WDS_ARTIFACTS_STORE=false)' };
  const ffmpeg = ffmpegOnPath();
  if (!ffmpeg) return { recordingUnavailable: 'ffmpeg is not installed on the browser-pool' };
  return {
    recording: {
      sink: artifacts,
      settings: { ...DEFAULT_RECORDING_SETTINGS, ffmpeg, fps: c.WDS_SESSION_RECORDING_FPS },
      interact: c.WDS_INTERACT_RECORDING,
    },
  };
}

/** Live browser sessions: docs/adr/0008-browser-sessions.md. */
@Module({
  imports: [RenderModule, AgentModule],
  providers: [
    { provide: SessionStore, inject: [Database], useFactory: (db: Database) => new SessionStore(db) },
    { provide: SessionBilling, inject: [Messaging], useFactory: (m: Messaging) => new SessionBilling(m) },
    {
      provide: SessionManager,
      inject: [
        APP_CONFIG,
        SessionStore,
        SessionBilling,
        ReplayStore,
        ProfileStore,
        PolicyProxy,
        ArtifactStore,
        LOGGER,
      ],
      useFactory: (
        c: BrowserPoolConfig,
        store: SessionStore,
        billing: SessionBilling,
        replays: ReplayStore,
        profiles: ProfileStore,
        proxy: PolicyProxy,
        artifacts: ArtifactStore,
        logger: Logger,
      ) =>
        new SessionManager(
          {
            replicaId: c.WDS_INSTANCE_ID,
            capacity: c.WDS_BROWSER_SESSIONS,
            chromiumPath: c.WDS_CHROMIUM_PATH,
            proxyUrl: () => proxy.url,
            baseDir: c.WDS_SESSION_DIR,
            uidBase: c.WDS_SANDBOX_UID_BASE,
            limits: {
              addressSpaceBytes: c.WDS_SANDBOX_MEMORY_MB * 1024 * 1024,
              cpuSeconds: c.WDS_SANDBOX_CPU_SECONDS,
              processes: c.WDS_SANDBOX_PROCESSES,
              fileBytes: 256 * 1024 * 1024,
            },
            browserProcesses: 512,
            outputCapBytes: c.WDS_SANDBOX_OUTPUT_BYTES,
            replyBudgetBytes: c.WDS_SANDBOX_REPLY_BYTES,
            runtimeMounts: runtimeMounts(c.WDS_SANDBOX_PYTHON_PATH, logger),
            launchTimeoutMs: 30_000,
            replayTimeoutMs: 60_000,
            warmBrowsers: c.WDS_SESSION_WARM_BROWSERS,
            leanBrowsers: c.WDS_SESSION_LEAN_BROWSER,
            warmRuntimes: c.WDS_SESSION_WARM_RUNTIMES,
            warmRuntimeUnusedMs: c.WDS_SESSION_WARM_RUNTIME_UNUSED_SECONDS * 1000,
            ...recording(c, artifacts),
          },
          store,
          billing,
          replays,
          profiles,
          logger.child({ component: 'sessions' }),
        ),
    },
    {
      provide: SessionEndpoint,
      inject: [APP_CONFIG, SessionManager, AgentViews],
      useFactory: (c: BrowserPoolConfig, sessions: SessionManager, agentViews: AgentViews) =>
        new SessionEndpoint(sessions, c.WDS_BROWSER_SESSION_HOST, c.WDS_BROWSER_SESSION_PORT, agentViews),
    },
    {
      provide: PromptSessionUseCase,
      inject: [SessionManager, SessionStore, BrowserAgent, Messaging, LOGGER],
      useFactory: (
        sessions: SessionManager,
        store: SessionStore,
        agent: BrowserAgent,
        messaging: Messaging,
        logger: Logger,
      ) =>
        new PromptSessionUseCase(
          sessions,
          store,
          agent,
          (event) => reportTokens(messaging, event),
          logger.child({ component: 'interact-prompt' }),
        ),
    },
    SessionsServer,
  ],
})
export class SessionsModule {}

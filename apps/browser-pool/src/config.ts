import os from 'node:os';
import path from 'node:path';
import { CommonEnv, envBool, envInt, envList } from '@wds/config';
import { CodeLanguage } from '@wds/contracts';
import { LlmEnvShape } from '@wds/llm';
import { z } from 'zod';
import { defaultChromiumPath } from './pool/browser-launcher';

/** Environment of the browser-pool feature (see README). */
export const browserPoolEnvShape = {
  /**
   * Chromium binary from Debian's packages (a browser is never downloaded): the headless shell when
   * installed (`chromium-headless-shell`: half the memory per context, faster pages), else `chromium`.
   */
  WDS_CHROMIUM_PATH: z.string().min(1).default(defaultChromiumPath),
  WDS_BROWSER_PROCESSES: envInt({ min: 1, max: 16 }).default(2),
  WDS_BROWSER_CAPACITY: envInt({ min: 1, max: 256 }).default(8),
  WDS_BROWSER_RECYCLE_JOBS: envInt({ min: 1 }).default(200),
  WDS_BROWSER_RECYCLE_MB: envInt({ min: 64 }).default(1500),
  WDS_BROWSER_LAUNCH_STAGGER_MS: envInt({ min: 0, max: 60_000 }).default(500),
  /** Create each browser's next default-emulation context ahead of time, off the request path. */
  WDS_BROWSER_SPARE_CONTEXT: envBool().default(true),
  /** Network-idle wait after load: quiet period and cap. */
  WDS_BROWSER_IDLE_MS: envInt({ min: 0, max: 10_000 }).default(50),
  WDS_BROWSER_IDLE_CAP_MS: envInt({ min: 0, max: 60_000 }).default(2_000),
  /**
   * Adblock Plus list files for ad/tracker blocking; unset = EasyList + EasyPrivacy from Debian's
   * webext-ublock-origin-chromium package when installed, else the small bundled list.
   */
  WDS_BROWSER_FILTER_LISTS: envList().optional(),
  /** Store screenshots/PDFs in the JetStream object store; false = base64 inline in the answer. */
  WDS_ARTIFACTS_STORE: envBool().default(true),
  WDS_ARTIFACT_TTL_HOURS: envInt({ min: 1 }).default(24),
  WDS_REPLAY_RETENTION_HOURS: envInt({ min: 1 }).default(24),
  /** Live browser sessions (POST /v2/browser, interact) this replica holds at most. */
  WDS_BROWSER_SESSIONS: envInt({ min: 0, max: 500 }).default(10),
  /**
   * Session browsers each replica keeps started (sandboxed, empty profile) for the next creates, so
   * that a create skips the Chromium start; refilled in the background, never reused after a
   * session. Each holds one of the WDS_BROWSER_SESSIONS slots while it waits. 0 disables.
   */
  WDS_SESSION_WARM_BROWSERS: envInt({ min: 0, max: 16 }).default(1),
  /**
   * Code runtimes started with each warm browser, in that browser's own code sandbox (ready to connect
   * to its CDP relay; node connects at the first call), so a session's first call skips the sandbox
   * and runtime start: comma list
   * of node, python, bash; `none` for none (an empty value means unset). Each costs its memory while it waits (node about 70 MB PSS,
   * docs/benchmarks.md). Handed out only with the browser they were made for.
   */
  WDS_SESSION_WARM_RUNTIMES: envList()
    .pipe(z.array(z.enum([...CodeLanguage.options, 'none'])))
    .transform((list) => [...new Set(list.filter((l) => l !== 'none'))] as CodeLanguage[])
    .default(['node']),
  /**
   * A runtime started ahead that its session has not called after this many seconds is stopped
   * (its memory back; a later first call starts one as usual). 0 keeps it for the session's life.
   */
  WDS_SESSION_WARM_RUNTIME_UNUSED_SECONDS: envInt({ min: 0, max: 86_400 }).default(120),
  /**
   * Frames per second of session recordings (recordSession): the screen sampled at this rate and
   * encoded as H.264 by ffmpeg (at 4 fps a recorded session costs ~2.5% of a core on a still page,
   * ~15% on a page that repaints every frame; docs/benchmarks.md, "Session recordings").
   */
  WDS_SESSION_RECORDING_FPS: envInt({ min: 1, max: 15 }).default(4),
  /**
   * Interact sessions (POST /v2/scrape/{jobId}/interact) are recorded too, as Firecrawl records them,
   * when this replica can record (the artifacts store and ffmpeg; otherwise they run unrecorded):
   * their `playlistUrl` and GET /v2/browser/{sessionId}/replay. false: only `recordSession` records.
   */
  WDS_INTERACT_RECORDING: envBool().default(true),
  /** Session browsers in 2 processes instead of 6 (in-process GPU/network/audio, no zygote); false for comparison. */
  WDS_SESSION_LEAN_BROWSER: envBool().default(true),
  /** Host directory of the sessions' private directories (profiles, scratch, sockets). */
  WDS_SESSION_DIR: z.string().min(1).default(path.join(os.tmpdir(), 'wds-sessions')),
  /** Sessions' sandboxes run as uids base + 2·slot (browser) and base + 2·slot + 1 (code). */
  WDS_SANDBOX_UID_BASE: envInt({ min: 1000, max: 2_000_000_000 }).default(200_000),
  /** Per process of user code: address space, CPU seconds; per session: processes and threads. */
  WDS_SANDBOX_MEMORY_MB: envInt({ min: 256, max: 65_536 }).default(2048),
  WDS_SANDBOX_CPU_SECONDS: envInt({ min: 10 }).default(900),
  WDS_SANDBOX_PROCESSES: envInt({ min: 16, max: 4096 }).default(96),
  /** stdout and stderr are each cut here; the whole reply also fits one NATS message (WDS_SANDBOX_REPLY_BYTES). */
  WDS_SANDBOX_OUTPUT_BYTES: envInt({ min: 1024 }).default(512 * 1024),
  WDS_SANDBOX_REPLY_BYTES: envInt({ min: 16 * 1024 }).default(900 * 1024),
  /** Playwright for Python installed with `pip install --target` (provisioned by npm start / npm test). */
  WDS_SANDBOX_PYTHON_PATH: z
    .string()
    .min(1)
    .default(path.join(__dirname, '..', '.sandbox-python')),
  /** Internal endpoint the gateway forwards cdpUrl connections to. */
  WDS_BROWSER_SESSION_HOST: z.string().min(1).default('0.0.0.0'),
  WDS_BROWSER_SESSION_PORT: envInt({ min: 0, max: 65_535 }).default(0),
  /** How the gateway reaches that endpoint; default http://127.0.0.1:<port> (set the pod IP in Kubernetes). */
  WDS_BROWSER_SESSION_ADVERTISE: z.url().optional(),
  /** A replica silent for this long is dead: its sessions end (and are billed) on the others. */
  WDS_SESSION_REPLICA_TIMEOUT_MS: envInt({ min: 2000 }).default(30_000),
  /**
   * Browser agent runs (wds.browser-pool.v1.agent.run) this replica holds at once, each in a context
   * of the render pool; beyond, CONCURRENCY_LIMITED. Keeps minutes-long runs from taking every
   * render slot.
   */
  WDS_AGENT_RUNS: envInt({ min: 0, max: 64 }).default(2),
  /** The LLM the agent asks for each step (libs/llm README); unset = agent runs and prompts answer 400. */
  ...LlmEnvShape,
};

export const BrowserPoolConfig = CommonEnv.extend(browserPoolEnvShape);
export type BrowserPoolConfig = z.output<typeof BrowserPoolConfig>;

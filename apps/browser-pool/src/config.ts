import { CommonEnv, envBool, envInt, envList } from '@wds/config';
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
};

export const BrowserPoolConfig = CommonEnv.extend(browserPoolEnvShape);
export type BrowserPoolConfig = z.output<typeof BrowserPoolConfig>;

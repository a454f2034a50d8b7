import { ServiceError, type Branding, type BrandingColour, type BrowserRenderRequest } from '@wds/contracts';
import type { NetworkPolicy } from '@wds/outbound';
import type { Request, Response } from 'playwright-core';
import { runActions, type ActionResultsRaw } from './actions-runner';
import type { ConsentHandler } from './consent';
import { DEFAULT_VIEWPORT, type StorageState } from './context-options';
import { sleep, type Deadline } from './deadline';
import { probeBranding } from './branding/probe-branding';
import { readHtml } from './dom';
import type { JobContext } from './job-context';
import { BLOCKED_HEADER, PROXY_ERROR_HEADER } from './policy-proxy';
import { takeScreenshot, type Capture } from './screenshot';

export interface SmartWaitSettings {
  /** The page counts as settled after this long without requests in flight. */
  quietMs: number;
  /** Upper bound of the wait after `load`, whatever the page keeps doing. */
  capMs: number;
}

export interface RenderOutcome {
  status: number;
  finalUrl: string;
  contentType?: string;
  html: string;
  screenshot?: Capture;
  /** The branding profile (`branding` format). */
  branding?: Branding;
  /** The page's colours with their uses (input of the scraper's optional LLM colour-role pass). */
  brandingPalette?: BrandingColour[];
  actions: ActionResultsRaw;
  blocked: { policy: number; ads: number };
  /** Consent dialogs answered on the page (blockAds). */
  consent?: string[];
  /** The context's cookies and localStorage after the job, when a profile is to be saved. */
  storageState?: StorageState;
}

/** How long a consent dialog that was found may take to be answered before the page is read anyway. */
const CONSENT_WAIT_MS = 2000;

/** Navigates a fresh job context and produces the rendered DOM, screenshot and action results. */
export class PageRenderer {
  constructor(
    private readonly wait: SmartWaitSettings,
    private readonly policy: NetworkPolicy,
    /** Cookie notices and consent dialogs removed from the page when ads are blocked. */
    private readonly noticeSelectors: readonly string[] = [],
    /** Answers consent dialogs when ads are blocked (before the notices left are removed). */
    private readonly consent?: ConsentHandler,
  ) {}

  async render(
    job: JobContext,
    req: BrowserRenderRequest,
    deadline: Deadline,
    opts: { captureStorage: boolean },
  ): Promise<RenderOutcome> {
    const { page, context } = job;
    const blocked = { policy: 0, ads: 0 };
    const guardJob = { blockAds: req.blockAds, blocked } as Parameters<JobContext['guard']['bind']>[0];
    job.guard.bind(guardJob);
    // Contexts are created with the default desktop viewport; only a requested one needs a resize.
    const viewport = req.screenshot?.viewport;
    if (viewport && !req.mobile && !sameSize(viewport, DEFAULT_VIEWPORT))
      await page.setViewportSize(viewport);

    let failedNavigation: string | undefined;
    const onFailed = (r: Request) => {
      if (r.isNavigationRequest() && r.frame() === page.mainFrame()) failedNavigation = r.url();
    };
    page.on('requestfailed', onFailed);
    let response: Response | null;
    try {
      response = await page.goto(req.url, { waitUntil: 'load', timeout: deadline.budget('navigation') });
    } catch (err) {
      throw await this.navigationError(err, guardJob.mainDocumentBlocked, req.url, failedNavigation);
    } finally {
      page.off('requestfailed', onFailed);
    }
    if (guardJob.mainDocumentBlocked) throw guardJob.mainDocumentBlocked;
    const responseHeaders = response?.headers() ?? {};
    if (responseHeaders[BLOCKED_HEADER] !== undefined) {
      // A redirect hop the first check could not see was refused by the policy proxy.
      blocked.policy++;
      throw redirectBlocked(response!.url());
    }
    if (responseHeaders[PROXY_ERROR_HEADER] !== undefined) {
      throw new ServiceError(
        'UPSTREAM_FAILED',
        `The browser could not load the page: ${responseHeaders[PROXY_ERROR_HEADER]}`,
        { reason: 'connection' },
      );
    }
    const settleMs = Math.min(this.wait.capMs, Math.max(0, deadline.remaining() - 50));
    await job.network.waitForQuiet(this.wait.quietMs, settleMs);
    if (req.waitFor > 0) await sleep(Math.min(req.waitFor, deadline.budget('waitFor')));
    let consent: string[] | undefined;
    if (req.blockAds) {
      if (this.consent)
        consent = await this.consent.handle(
          page,
          job.cdp,
          Math.min(CONSENT_WAIT_MS, deadline.remaining() - 50),
        );
      if (this.noticeSelectors.length > 0) await removeNotices(job, this.noticeSelectors);
    }

    const actions = await runActions(job, req.actions, deadline);
    const screenshot = req.screenshot
      ? await takeScreenshot(page, job.cdp, req.screenshot, deadline.budget('screenshot'))
      : undefined;
    const probed = req.branding ? await probeBranding(job.cdp, deadline.budget('branding')) : undefined;
    const html = await readHtml(job.cdp);
    const storageState = opts.captureStorage ? await context.storageState() : undefined;
    return {
      status: response?.status() ?? 200,
      finalUrl: page.url(),
      contentType: responseHeaders['content-type'],
      html,
      screenshot,
      branding: probed?.branding,
      brandingPalette: probed?.palette,
      actions,
      blocked,
      consent,
      storageState,
    };
  }

  private async navigationError(
    err: unknown,
    blocked: ServiceError | undefined,
    url: string,
    failedHop: string | undefined,
  ): Promise<ServiceError> {
    if (blocked) return blocked;
    if (err instanceof ServiceError) return err;
    const message = (err as Error).message ?? String(err);
    if (/Timeout \d+ms exceeded/i.test(message)) {
      return new ServiceError('SCRAPE_TIMEOUT', 'Scrape timed out while the browser loaded the page');
    }
    const net = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
    // The policy proxy refuses a CONNECT (HTTPS, websocket) with 403, which Chromium reports like any
    // tunnel failure; checking the hop that failed tells a refused destination from an unreachable one.
    if (failedHop) {
      const refused = await this.policy.checkUrl(failedHop).then(
        () => undefined,
        (e: unknown) => (e instanceof ServiceError && e.code === 'DESTINATION_BLOCKED' ? e : undefined),
      );
      if (refused) return failedHop === url ? refused : redirectBlocked(failedHop);
    }
    if (net === 'ERR_NAME_NOT_RESOLVED')
      return new ServiceError('UPSTREAM_FAILED', `could not resolve host ${hostOf(url)}`, { reason: 'dns' });
    if (net === 'ERR_TUNNEL_CONNECTION_FAILED') {
      return new ServiceError(
        'UPSTREAM_FAILED',
        'The browser could not connect to the page (tunnel failed)',
        {
          reason: 'tunnel',
        },
      );
    }
    return new ServiceError(
      'UPSTREAM_FAILED',
      `The browser could not load the page (${net ?? 'navigation failed'})`,
      { reason: net ?? 'navigation' },
    );
  }
}

/** Removes consent dialogs (and the scroll lock they put on the page) before actions and capture. */
async function removeNotices(job: JobContext, selectors: readonly string[]): Promise<void> {
  // In-page code as source text: this project compiles without DOM typings.
  await job.cdp.send('Runtime.evaluate', {
    expression: `(() => {
    let removed = 0;
    for (const sel of ${JSON.stringify(selectors)}) {
      try {
        document.querySelectorAll(sel).forEach((el) => { el.remove(); removed++; });
      } catch (e) { /* a selector this browser does not support; the others still apply */ }
    }
    if (removed > 0) for (const el of [document.documentElement, document.body]) if (el) el.style.removeProperty('overflow');
  })()`,
  });
}

function redirectBlocked(url: string): ServiceError {
  return new ServiceError(
    'DESTINATION_BLOCKED',
    `The page redirected to a destination the network policy refuses (${hostOf(url)})`,
    { host: hostOf(url) },
  );
}

function sameSize(a: { width: number; height: number }, b: { width: number; height: number }): boolean {
  return a.width === b.width && a.height === b.height;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

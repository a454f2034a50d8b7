import { ServiceError, type BrowserRenderRequest } from '@wds/contracts';
import type { Response } from 'playwright-core';
import { runActions, type ActionResultsRaw } from './actions-runner';
import { DEFAULT_VIEWPORT, type StorageState } from './context-options';
import { sleep, type Deadline } from './deadline';
import type { JobContext } from './job-context';
import { BLOCKED_HEADER } from './policy-proxy';
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
  actions: ActionResultsRaw;
  blocked: { policy: number; ads: number };
  /** The context's cookies and localStorage after the job, when a profile is to be saved. */
  storageState?: StorageState;
}

/** Navigates a fresh job context and produces the rendered DOM, screenshot and action results. */
export class PageRenderer {
  constructor(
    private readonly wait: SmartWaitSettings,
    /** Cookie notices and consent dialogs removed from the page when ads are blocked. */
    private readonly noticeSelectors: readonly string[] = [],
  ) {}

  async render(
    job: JobContext,
    req: BrowserRenderRequest,
    headers: Record<string, string>,
    deadline: Deadline,
    opts: { captureStorage: boolean },
  ): Promise<RenderOutcome> {
    const { page, context } = job;
    const blocked = { policy: 0, ads: 0 };
    const guardJob = { blockAds: req.blockAds, blocked } as Parameters<JobContext['guard']['bind']>[0];
    job.guard.bind(guardJob);
    await context.setExtraHTTPHeaders(headers);
    const viewport = req.screenshot?.viewport;
    if (viewport && !req.mobile) await page.setViewportSize(viewport);
    else if (!req.mobile) await page.setViewportSize({ ...DEFAULT_VIEWPORT });

    let response: Response | null;
    try {
      response = await page.goto(req.url, { waitUntil: 'load', timeout: deadline.budget('navigation') });
    } catch (err) {
      throw navigationError(err, guardJob.mainDocumentBlocked, req.url);
    }
    if (guardJob.mainDocumentBlocked) throw guardJob.mainDocumentBlocked;
    if (response && (await response.headerValue(BLOCKED_HEADER)) !== null) {
      // A redirect hop the first check could not see was refused by the policy proxy.
      blocked.policy++;
      throw new ServiceError(
        'DESTINATION_BLOCKED',
        `The page redirected to a destination the network policy refuses (${hostOf(response.url())})`,
        { host: hostOf(response.url()) },
      );
    }
    await this.settle(job, deadline);
    if (req.waitFor > 0) await sleep(Math.min(req.waitFor, deadline.budget('waitFor')));
    if (req.blockAds && this.noticeSelectors.length > 0) await removeNotices(job, this.noticeSelectors);

    const actions = await runActions(page, req.actions, deadline);
    const screenshot = req.screenshot
      ? await takeScreenshot(page, req.screenshot, deadline.budget('screenshot'))
      : undefined;
    const html = await page.content();
    const storageState = opts.captureStorage ? await context.storageState() : undefined;
    const headersOut = response
      ? await response.allHeaders().catch(() => ({}) as Record<string, string>)
      : {};
    return {
      status: response?.status() ?? 200,
      finalUrl: page.url(),
      contentType: headersOut['content-type'],
      html,
      screenshot,
      actions,
      blocked,
      storageState,
    };
  }

  /** Waits for the network to be quiet (no request in flight for `quietMs`), at most `capMs`. */
  private async settle(job: JobContext, deadline: Deadline): Promise<void> {
    const until = Date.now() + Math.min(this.wait.capMs, Math.max(0, deadline.remaining() - 50));
    let quietSince = Date.now();
    while (Date.now() < until) {
      if (job.inflight() > 0) quietSince = Date.now();
      else if (Date.now() - quietSince >= this.wait.quietMs) return;
      await sleep(20);
    }
  }
}

/** Removes consent dialogs (and the scroll lock they put on the page) before actions and capture. */
async function removeNotices(job: JobContext, selectors: readonly string[]): Promise<void> {
  // In-page code as source text: this project compiles without DOM typings.
  await job.page.evaluate(`(() => {
    let removed = 0;
    for (const sel of ${JSON.stringify(selectors)}) {
      try {
        document.querySelectorAll(sel).forEach((el) => { el.remove(); removed++; });
      } catch (e) { /* a selector this browser does not support; the others still apply */ }
    }
    if (removed > 0) for (const el of [document.documentElement, document.body]) if (el) el.style.removeProperty('overflow');
  })()`);
}

function navigationError(err: unknown, blocked: ServiceError | undefined, url: string): ServiceError {
  if (blocked) return blocked;
  if (err instanceof ServiceError) return err;
  const message = (err as Error).message ?? String(err);
  if (/Timeout \d+ms exceeded/i.test(message)) {
    return new ServiceError('SCRAPE_TIMEOUT', 'Scrape timed out while the browser loaded the page');
  }
  const net = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  if (net === 'ERR_TUNNEL_CONNECTION_FAILED') {
    // Chromium reports a CONNECT refused by the policy proxy and an unreachable host alike.
    return new ServiceError(
      'UPSTREAM_FAILED',
      'The browser could not reach the page: the network policy refused a destination it led to, or it is unreachable',
      { reason: 'tunnel' },
    );
  }
  if (net === 'ERR_NAME_NOT_RESOLVED')
    return new ServiceError('UPSTREAM_FAILED', `could not resolve host ${hostOf(url)}`, { reason: 'dns' });
  return new ServiceError(
    'UPSTREAM_FAILED',
    `The browser could not load the page (${net ?? 'navigation failed'})`,
    {
      reason: net ?? 'navigation',
    },
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

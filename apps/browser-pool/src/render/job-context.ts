import type { NetworkPolicy } from '@wds/outbound';
import type { Browser, BrowserContext, BrowserContextOptions, CDPSession, Page } from 'playwright-core';
import type { ContextFactory } from '../pool/browser-pool';
import { NetworkActivity } from './network-activity';
import { RequestGuard, type RequestBlocker } from './request-guard';

/** A fresh context with its page, request guard, DevTools session and request activity. */
export interface JobContext {
  context: BrowserContext;
  page: Page;
  /**
   * Raw DevTools session of the page: reading the DOM and capturing screenshots through it skips the
   * helper scripts Playwright injects into each new document on first use (~40–70 ms per page).
   */
  cdp: CDPSession;
  guard: RequestGuard;
  /** Requests of the page in flight and when the last one started or ended (the smart wait watches it). */
  network: NetworkActivity;
}

/** Creates job contexts: service workers blocked (they would bypass request interception), guard installed. */
export class JobContextFactory implements ContextFactory<JobContext> {
  constructor(
    private readonly policy: NetworkPolicy,
    private readonly blocker: RequestBlocker | undefined,
  ) {}

  async create(browser: Browser, options: BrowserContextOptions): Promise<JobContext> {
    const context = await browser.newContext({ ...options, serviceWorkers: 'block', acceptDownloads: false });
    try {
      const guard = await RequestGuard.install(context, this.policy, this.blocker);
      const network = new NetworkActivity();
      context.on('request', () => network.started());
      context.on('requestfinished', () => network.ended());
      context.on('requestfailed', () => network.ended());
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      return { context, page, cdp, guard, network };
    } catch (err) {
      await context.close().catch(() => undefined);
      throw err;
    }
  }

  async close(job: JobContext): Promise<void> {
    await job.context.close();
  }
}

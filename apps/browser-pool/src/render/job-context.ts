import type { NetworkPolicy } from '@wds/outbound';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { ContextFactory } from '../pool/browser-pool';
import { RequestGuard, type RequestBlocker } from './request-guard';

/** A fresh context with its page, request guard and in-flight request counter. */
export interface JobContext {
  context: BrowserContext;
  page: Page;
  guard: RequestGuard;
  /** Requests started and not yet finished or failed (the smart wait watches it). */
  inflight(): number;
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
      let inflight = 0;
      context.on('request', () => inflight++);
      context.on('requestfinished', () => inflight--);
      context.on('requestfailed', () => inflight--);
      const page = await context.newPage();
      return { context, page, guard, inflight: () => inflight };
    } catch (err) {
      await context.close().catch(() => undefined);
      throw err;
    }
  }

  async close(job: JobContext): Promise<void> {
    await job.context.close();
  }
}

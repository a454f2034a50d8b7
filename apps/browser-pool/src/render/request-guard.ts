import { ServiceError } from '@wds/contracts';
import type { NetworkPolicy } from '@wds/outbound';
import type { BrowserContext, Request, Route } from 'playwright-core';

/** Decides whether a request is an ad or a tracker (see AdBlocker). */
export interface RequestBlocker {
  isBlocked(req: { url: string; sourceUrl: string; resourceType: string }): boolean;
}

export interface GuardJob {
  blockAds: boolean;
  blocked: { policy: number; ads: number };
  /** Why the page's own document was refused, if it was. */
  mainDocumentBlocked?: ServiceError;
}

/**
 * The first check of the network policy and ad blocking for every request a page makes: documents,
 * subresources, frames, fetches (redirect hops and websockets are enforced by the policy proxy). A context is bound to one job at a time
 * (pre-created contexts get their job later), and refuses everything while unbound.
 */
export class RequestGuard {
  private job?: GuardJob;

  constructor(
    private readonly policy: NetworkPolicy,
    private readonly blocker: RequestBlocker | undefined,
  ) {}

  static async install(
    context: BrowserContext,
    policy: NetworkPolicy,
    blocker: RequestBlocker | undefined,
  ): Promise<RequestGuard> {
    const guard = new RequestGuard(policy, blocker);
    await context.route('**/*', (route) => guard.onRequest(route));
    // Websockets are not intercepted here: their CONNECT tunnels go through the policy proxy, which
    // refuses private destinations (routeWebSocket would inject a script into every page for the same).
    return guard;
  }

  bind(job: GuardJob): void {
    this.job = job;
  }

  private async onRequest(route: Route): Promise<void> {
    const job = this.job;
    const request = route.request();
    if (!job) return route.abort('blockedbyclient');
    const url = request.url();
    if (!/^https?:/i.test(url)) return route.continue();
    const isMainDocument = isMainFrameNavigation(request);
    if (job.blockAds && this.blocker && !isMainDocument) {
      const sourceUrl = frameUrl(request) ?? url;
      if (this.blocker.isBlocked({ url, sourceUrl, resourceType: request.resourceType() })) {
        job.blocked.ads++;
        return route.abort('blockedbyclient');
      }
    }
    try {
      await this.policy.checkUrl(url);
    } catch (err) {
      job.blocked.policy++;
      if (isMainDocument) {
        job.mainDocumentBlocked =
          err instanceof ServiceError ? err : new ServiceError('DESTINATION_BLOCKED', 'Destination refused');
      }
      const dns = err instanceof ServiceError && err.code === 'UPSTREAM_FAILED';
      return route.abort(dns ? 'namenotresolved' : 'blockedbyclient');
    }
    return route.continue();
  }
}

function frameUrl(request: Request): string | undefined {
  try {
    return request.frame().url();
  } catch {
    return undefined;
  }
}

function isMainFrameNavigation(request: Request): boolean {
  if (!request.isNavigationRequest()) return false;
  try {
    return request.frame().parentFrame() === null;
  } catch {
    // Requests of a service worker have no frame; they are never the main document.
    return false;
  }
}

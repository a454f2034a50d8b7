import { findFormat, ServiceError, type ProxyTier, type ScrapeRunRequest } from '@wds/contracts';
import type { BrowserEngine, RenderedPage } from './browser-engine';
import type { FetchedPage, FetchEngine } from './fetch-engine';
import { throughProxyTiers } from './proxy-tiers';

type Options = ScrapeRunRequest['options'];

/** Request features only a browser can honour at all. */
const BROWSER_ONLY = new Set(['actions', 'screenshot', 'branding', 'waitFor', 'profile']);

/** Why a request needs the browser: features only it has, or emulation it does better (mobile, location). */
export function browserReasons(o: Options): string[] {
  const reasons: string[] = [];
  if ((o.actions?.length ?? 0) > 0) reasons.push('actions');
  if (findFormat(o.formats, 'screenshot')) reasons.push('screenshot');
  if (findFormat(o.formats, 'branding')) reasons.push('branding');
  if (o.waitFor > 0) reasons.push('waitFor');
  if (o.profile) reasons.push('profile');
  if (o.mobile) reasons.push('mobile');
  if (o.location.country !== 'US' || (o.location.languages?.length ?? 0) > 0) reasons.push('location');
  return reasons;
}

const APP_ROOT =
  /<(div|main|section|app-root)\b[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|___gatsby|svelte|application)\b[^>]*>\s*<\/\1>/i;

/**
 * A page whose server HTML is an application shell filled by scripts: an empty app root element
 * (`#root`, `#app`, `#__next`...) or next to no text, and scripts to fill it.
 */
export function isScriptRenderedShell(html: string): boolean {
  if (!/<script\b/i.test(html)) return false;
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  const visible = body.replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1>/gi, '');
  if (APP_ROOT.test(visible) || /<app-root\b[^>]*>\s*<\/app-root>/i.test(visible)) return true;
  const text = visible
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length < 40;
}

export interface PageOutcome {
  page: FetchedPage;
  engine: 'fetch' | 'browser';
  rendered?: RenderedPage;
  warning?: string;
}

export interface JobRef {
  teamId: string;
  jobId: string;
  zeroDataRetention: boolean;
}

/** Failures no other engine can fix: the policy, the deadline, the caller's request, an unknown host. */
function isFinal(err: unknown): boolean {
  if (!(err instanceof ServiceError)) return false;
  if (err.code === 'UPSTREAM_FAILED')
    return (err.details as { reason?: string } | undefined)?.reason === 'dns';
  return err.code !== 'SERVICE_UNAVAILABLE' && err.code !== 'INTERNAL' && err.code !== 'CONCURRENCY_LIMITED';
}

interface Step {
  name: string;
  run: () => Promise<PageOutcome>;
}

/**
 * Starts the first engine; when it fails (with a failure another engine might not have), or has not
 * answered after `delayMs`, the next one starts too. The first success wins; when every engine fails,
 * one error names each engine's failure, with the first engine's code.
 */
export function waterfall(steps: Step[], delayMs: number): Promise<PageOutcome> {
  return new Promise((resolve, reject) => {
    const failures: { name: string; err: unknown }[] = [];
    let started = 0;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      settled = true;
    };
    const startNext = () => {
      clearTimeout(timer);
      if (settled || started >= steps.length) return;
      const step = steps[started++];
      if (started < steps.length) timer = setTimeout(startNext, delayMs);
      step.run().then(
        (value) => {
          if (settled) return;
          finish();
          resolve(value);
        },
        (err: unknown) => {
          if (settled) return;
          failures.push({ name: step.name, err });
          if (isFinal(err) || (started >= steps.length && failures.length === started)) {
            finish();
            reject(combine(failures));
          } else if (started < steps.length) {
            startNext();
          }
        },
      );
    };
    startNext();
  });
}

function combine(failures: { name: string; err: unknown }[]): unknown {
  const [first] = failures;
  if (failures.length === 1 || !(first.err instanceof ServiceError)) return first.err;
  const others = failures
    .slice(1)
    .map((f) => `${f.name} engine: ${(f.err as Error).message}`)
    .join('; ');
  return new ServiceError(first.err.code, `${first.err.message} (also failed: ${others})`, first.err.details);
}

/** Fetch engine first unless the request needs a browser; the browser for script-rendered shells. */
export class EngineSelector {
  constructor(
    private readonly fetchEngine: FetchEngine,
    private readonly browser: BrowserEngine | undefined,
    private readonly settings: { waterfallDelayMs: number },
  ) {}

  get hasBrowser(): boolean {
    return this.browser !== undefined;
  }

  async obtain(o: Options, job: JobRef, deadline: number): Promise<PageOutcome> {
    const reasons = browserReasons(o);
    const fetchStep: Step = { name: 'fetch', run: () => this.fetch(o, deadline) };
    if (!this.browser) return fetchStep.run();
    const browserStep: Step = { name: 'browser', run: () => this.render(o, job, deadline) };
    if (reasons.some((r) => BROWSER_ONLY.has(r))) return browserStep.run();
    if (reasons.length > 0) return waterfall([browserStep, fetchStep], this.settings.waterfallDelayMs);

    const fetched = await waterfall([fetchStep, browserStep], this.settings.waterfallDelayMs);
    if (fetched.engine === 'browser' || !looksLikeShell(fetched.page)) return fetched;
    try {
      return await browserStep.run();
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'DESTINATION_BLOCKED') throw err;
      return {
        ...fetched,
        warning: `The page is rendered by scripts, but the browser could not render it (${(err as Error).message}); this is the server's HTML`,
      };
    }
  }

  private async fetch(o: Options, deadline: number): Promise<PageOutcome> {
    const page = await this.fetchEngine.fetch({
      url: o.url,
      headers: o.headers,
      mobile: o.mobile,
      location: o.location,
      skipTlsVerification: o.skipTlsVerification,
      proxy: o.proxy,
      deadline,
    });
    return { page, engine: 'fetch' };
  }

  /**
   * Renders through the proxy pools as the fetch engine fetches: `enhanced` through that pool, otherwise
   * the basic one, and with `auto` once more through the enhanced pool when the page answered as a bot
   * wall (401/403/429); the retry is kept only if it got past it. Empty pools mean direct connections.
   */
  private async render(o: Options, job: JobRef, deadline: number): Promise<PageOutcome> {
    const pools = this.fetchEngine.proxies;
    return throughProxyTiers({
      proxy: o.proxy,
      enhancedAvailable: pools.enhanced.size > 0,
      attempt: (tier) => this.renderVia(o, job, deadline, tier, pools[tier].next()),
      status: (outcome) => outcome.page.status,
      keepFirstWhenRetryFails: true,
    });
  }

  private async renderVia(
    o: Options,
    job: JobRef,
    deadline: number,
    tier: ProxyTier,
    upstreamProxy: string | undefined,
  ): Promise<PageOutcome> {
    const screenshot = findFormat(o.formats, 'screenshot');
    const rendered = await this.browser!.render({
      teamId: job.teamId,
      jobId: job.jobId,
      url: o.url,
      headers: o.headers,
      mobile: o.mobile,
      location: o.location,
      skipTlsVerification: o.skipTlsVerification,
      blockAds: o.blockAds,
      waitFor: o.waitFor,
      screenshot: screenshot
        ? {
            fullPage: screenshot.fullPage ?? false,
            quality: screenshot.quality,
            viewport: screenshot.viewport,
          }
        : undefined,
      branding: findFormat(o.formats, 'branding') !== undefined,
      actions: o.actions ?? [],
      profile: o.profile,
      zeroDataRetention: job.zeroDataRetention,
      upstreamProxy,
      deadline,
    });
    const contentType = 'text/html; charset=utf-8';
    const page: FetchedPage = {
      url: rendered.finalUrl,
      status: rendered.status,
      headers: { 'content-type': contentType },
      body: Buffer.from(rendered.content.html, 'utf8'),
      contentType,
      charset: 'utf-8',
      redirects: [],
      timings: { totalMs: rendered.ms },
      proxyUsed: upstreamProxy === undefined ? undefined : tier,
    };
    return { page, engine: 'browser', rendered };
  }
}

function looksLikeShell(page: FetchedPage): boolean {
  const type = (page.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== '' && type !== 'text/html' && type !== 'application/xhtml+xml') return false;
  if (page.status < 200 || page.status >= 300) return false;
  return isScriptRenderedShell(page.body.toString('utf8'));
}

import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { Objm } from '@nats-io/obj';
import {
  ARTIFACTS_BUCKET,
  BROWSER_POOL_RPC,
  RenderedContent,
  ServiceError,
  type BrowserRenderReply,
  type BrowserRenderRequestInput,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';

const gunzipAsync = promisify(gunzip);

export type RenderPageRequest = Omit<BrowserRenderRequestInput, 'timeoutMs'> & {
  /** Epoch ms by which the render must be done. */
  deadline: number;
};

export interface RenderedPage extends Omit<BrowserRenderReply, 'content' | 'contentArtifact'> {
  content: RenderedContent;
}

/** Renders pages in a real browser (the browser-pool service). */
export abstract class BrowserEngine {
  abstract render(req: RenderPageRequest): Promise<RenderedPage>;
}

export interface NatsBrowserEngineOptions {
  /** Render requests sent before giving up when replicas answer CONCURRENCY_LIMITED. */
  attempts: number;
  /** Pause before the next attempt (ms), randomised up to twice that. */
  retryDelayMs: number;
  now?: () => number;
}

/**
 * Browser rendering over `wds.browser-pool.v1.render`. A replica at capacity refuses at once; NATS
 * queue groups pick a replica at random, so trying again a few times reaches a free one if any is.
 * When all stay full the CONCURRENCY_LIMITED error (with Retry-After) goes back to the caller.
 */
export class NatsBrowserEngine extends BrowserEngine {
  private readonly now: () => number;

  constructor(
    private readonly messaging: Messaging,
    private readonly opts: NatsBrowserEngineOptions,
  ) {
    super();
    this.now = opts.now ?? Date.now;
  }

  async render(req: RenderPageRequest): Promise<RenderedPage> {
    const { deadline, ...rest } = req;
    let last: ServiceError | undefined;
    for (let attempt = 0; attempt < this.opts.attempts; attempt++) {
      const remaining = deadline - this.now();
      if (remaining < 500) break;
      try {
        const reply = await this.messaging.request(
          BROWSER_POOL_RPC.render,
          { ...rest, timeoutMs: Math.min(remaining, 300_000) },
          // The pool answers within timeoutMs; the margin covers storing artifacts and the reply.
          { timeoutMs: remaining + 5_000 },
        );
        return { ...reply, content: await this.content(reply) };
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        if (err.code === 'SERVICE_UNAVAILABLE') {
          throw new ServiceError(
            'SERVICE_UNAVAILABLE',
            'No browser-pool replica is available to render this page',
          );
        }
        if (err.code !== 'CONCURRENCY_LIMITED') throw err;
        last = err;
        await sleep(this.opts.retryDelayMs * (1 + Math.random()));
      }
    }
    if (!last)
      throw new ServiceError('SCRAPE_TIMEOUT', 'Scrape timed out before the browser rendered the page');
    throw new ServiceError(
      'CONCURRENCY_LIMITED',
      'Every browser is busy; retry later',
      { attempts: this.opts.attempts },
      last.retryAfterSeconds ?? 1,
    );
  }

  private async content(reply: BrowserRenderReply): Promise<RenderedContent> {
    if (reply.content) return reply.content;
    const store = await new Objm(this.messaging.js).open(ARTIFACTS_BUCKET);
    const data = await store.getBlob(reply.contentArtifact!);
    if (!data) throw new ServiceError('INTERNAL', 'The rendered page expired before it was read');
    // Read once: the object would otherwise stay until the bucket's TTL.
    await store.delete(reply.contentArtifact!).catch(() => undefined);
    return RenderedContent.parse(JSON.parse((await gunzipAsync(data)).toString('utf8')));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
